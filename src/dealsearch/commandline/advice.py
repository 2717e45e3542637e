"""What to tell a user about continuing a run: every command that names a run (``records``,
``search --resume``, a game's own resumable commands) says the same."""

from __future__ import annotations

from typing import Any

from ..log import LOST
from ..strategies import find_strategy

CANNOT_RESUME = ("cannot be resumed: dealsearch log recover kept its finds, not where it "
                 "was")


def how_to_continue(run: dict[str, Any], db: str) -> str:
    """A run of a strategy resumes with the command that runs it (``search``, a game's
    ``factory`` or ``reverse``); a run that ``log recover`` kept without its checkpoint
    (:data:`~dealsearch.log.LOST`) cannot, nor one of a strategy not installed here."""
    if run["strategy"] == LOST:
        return CANNOT_RESUME
    strategy = find_strategy(run["strategy"])
    if strategy is not None:
        return f"continue with: dealsearch {strategy.command} --resume {run['id']} --db {db}"
    return "not resumable"
