"""Step definitions: each ``*_steps.py`` module is loaded by the plugin as a pytest plugin.

Steps reach an implementation only through the ``adapter`` fixture (the adapter protocol).
"""
