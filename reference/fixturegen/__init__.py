"""The seeded generator of Pi session fixtures and benchmark inputs (``generator.generate``);
``python -m reference.fixturegen --refresh|--check fixtures/`` keeps the committed fixtures current."""
