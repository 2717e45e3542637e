"""The long soak of "nothing lost": hundreds of Ctrl-C and kill, each run resumed to its end.

It runs the property test of ``tests/framework/test_interrupts.py`` with many more interrupts
and a budget that grows with them: a search stopped at random moments, SIGINT and SIGTERM in
turn, resumed each time, must end holding exactly the finds, counters and best of the same
search left alone. The docs' search page gives the figures it printed.

    python benchmarks/soak_interrupts.py --interrupts 200
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1] / "tests" / "framework" / "test_interrupts.py"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--interrupts", type=int, default=200, help="per game (default 200)")
    args = parser.parse_args()
    env = {**os.environ, "DEALSEARCH_SOAK_INTERRUPTS": str(args.interrupts)}
    return subprocess.call([sys.executable, "-m", "pytest", str(TESTS), "-k", "left_alone",
                            "-s", "-q", "-p", "no:cacheprovider"], env=env)


if __name__ == "__main__":
    sys.exit(main())
