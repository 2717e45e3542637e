"""One run of any kind from its start to its end (:class:`ManagedRun`)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from typing import Any

from .finds import Find
from .ownership import Owner
from .schema import LogWriteFailed
from .store import RecordLog


class ManagedRun:
    """One run of a strategy, played by the run service, from its start to its end.

    Every kind of run opens, saves, finishes and fails through this one class, so each ends
    ``done``, ``interrupted`` or ``failed``, never left ``running`` by an exception::

        with ManagedRun.start(log, "random", options, seed, workers, game) as run:
            run.save(finds, progress)          # each commit: finds and progress together
            run.progress = progress            # what the last status is saved with
        # left normally: done; by Ctrl-C or kill: interrupted; by any other exception: failed
    """

    def __init__(self, log: RecordLog, run_id: int, owner: str | None = None) -> None:
        self.log = log
        self.run_id = run_id
        self.owner = owner   # the token this process owns the run by, if it keeps one
        self.progress: dict[str, Any] | None = None
        self.status: str | None = None   # the status the run ended with, once it has

    @classmethod
    def start(cls, log: RecordLog, strategy: str, options: dict[str, Any],
              seed: int | None, workers: int, game: str,
              game_options: dict[str, Any] | None = None, options_key: str = "",
              owner: Owner | None = None,
              objective: str | None = None) -> ManagedRun:
        """Log a new run, owned by ``owner`` if given, its finds ranked by ``objective``
        (default: the game's first measure)."""
        log.refuse_damage()
        run_id = log.start_run(strategy, options, seed, workers, game, game_options,
                               options_key, owner, objective)
        return cls(log, run_id, None if owner is None else owner.token)

    def save(self, finds: Iterable[Find], progress: dict[str, Any], **extra: Any) -> None:
        """Commit finds with the run's progress (see :meth:`RecordLog.save`)."""
        self.log.save(self.run_id, finds, progress, owner=self.owner, **extra)
        self.progress = progress

    def renew(self) -> None:
        """Renew the owner's lease, if the run has an owner (:mod:`dealsearch.log.ownership`)."""
        if self.owner is not None:
            self.log.renew(self.run_id, self.owner)

    def finish(self, status: str, progress: dict[str, Any] | None = None,
               **extra: Any) -> None:
        """End the run: its last progress and its status. If the log cannot take the whole
        save (a full disk, a lock held too long), at least its status is written, and the
        error is raised unless the run is failing anyway, or is done and its status could
        be written (its work was all committed before)."""
        self.status = status
        progress = progress if progress is not None else self.progress
        try:
            if progress is None:
                self.log.set_status(self.run_id, status, self.owner)
            else:
                self.log.save(self.run_id, [], progress, status=status,
                              owner=self.owner, **extra)
        except LogWriteFailed:
            try:   # a status fits where a save did not (it rewrites a page, adds none)
                self.log.set_status(self.run_id, status, self.owner)
            except LogWriteFailed:
                raise_it = status != "failed"
            else:   # done: every commit of its work is in; only its last sample is lost
                raise_it = status not in ("failed", "done")
            if raise_it:
                raise

    def __enter__(self) -> ManagedRun:
        return self

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        if self.status is not None:
            return
        if kind is None:
            self.finish("done")
        elif issubclass(kind, KeyboardInterrupt):
            self.finish("interrupted")
        else:
            with contextlib.suppress(LogWriteFailed):
                self.finish("failed")
