"""``python -m dealsearch``: the same command as ``dealsearch``."""

from .start import main

if __name__ == "__main__":
    raise SystemExit(main())
