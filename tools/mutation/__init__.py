"""The mutant runner behind tools/mutants.py (docs/mutants.md): catalogue, sample, judge, report."""
