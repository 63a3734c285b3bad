"""JavaScript-faithful primitives: JSON bytes, JavaScript values, UTF-16 units, paths, clock, errors and codes. No I/O beyond paths."""
