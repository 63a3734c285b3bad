"""Helpers shared by the tests (importable as ``testkit`` through pytest's ``pythonpath``)."""
