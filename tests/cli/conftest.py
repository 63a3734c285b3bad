"""The wrong-path matrix's grid (one row per path slot, one column per wrong thing) is printed by the
plugin testkit/wrong_path_grid.py, which tests/conftest.py registers: under pytest-xdist the
controller, which prints the grid, never loads this folder's conftest."""
