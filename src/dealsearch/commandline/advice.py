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
    ``factory``), and so does a run that stored its own way to resume ("resume": a command
    the run's id and log complete); any other run (a reverse walk) starts again, and
    a run that ``log recover`` kept without its checkpoint (:data:`~dealsearch.log.LOST`)
    neither."""
    if run["strategy"] == LOST:
        return CANNOT_RESUME
    strategy = find_strategy(run["strategy"])
    if strategy is not None:
        return f"continue with: dealsearch {strategy.command} --resume {run['id']} --db {db}"
    resume = run["options"].get("resume")
    if resume:
        return f"continue with: {resume} {run['id']} --db {db}"
    again = run["options"].get("again")
    if again:
        return f"not resumable; start it again with: {again}"
    return "not resumable"
