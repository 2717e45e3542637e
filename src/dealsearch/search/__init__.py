"""Search strategies (random, climb, exhaustive) and the local runner that drives them.

The strategies only produce deals and read results; they know nothing of the log's schema or
the command line, so another game's engine or another backend can plug in beside them.
"""

from .runner import Runner, Summary
from .spec import STRATEGIES, SearchSpec, parse_duration

__all__ = ["STRATEGIES", "Runner", "SearchSpec", "Summary", "parse_duration"]
