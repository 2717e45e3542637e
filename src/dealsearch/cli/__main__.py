"""``python -m dealsearch.cli``: the same command as ``dealsearch``."""

from .main import main

if __name__ == "__main__":
    raise SystemExit(main())
