"""``python -m reference.fixturegen --refresh|--check FIXTURES_DIR``: :func:`reference.fixturegen.refresh.main`."""

from reference.fixturegen.refresh import main

if __name__ == "__main__":
    raise SystemExit(main())
