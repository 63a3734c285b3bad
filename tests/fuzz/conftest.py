"""The fuzz campaign's tally (cases per category, failing tests, ``$FUZZ_REPORT``) is printed by the
plugin fuzz/tally.py, which tests/conftest.py registers: under pytest-xdist the controller, which
prints the summary, never loads this folder's conftest."""
