"""The chaos campaign's tally (runs, behaviours per kind, broken invariants, seeds, ``$CHAOS_REPORT``)
is printed by the plugin chaos/tally.py, which tests/conftest.py registers: under pytest-xdist the
controller, which prints the summary, never loads this folder's conftest."""
