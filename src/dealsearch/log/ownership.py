"""One owner per run: the process that plays a run, and how another tells whether it is gone.

A search that plays a run holds it in the log's ``owners`` table: its pid, its machine, the
start time of its process (which tells a reused pid from the owner) and a lease, renewed with
every commit and at least every :data:`RENEW_SECONDS`, that runs out :data:`LEASE_SECONDS`
after the last renewal. An owner is gone when, on the same machine, its process is not running
any more; on another machine (which cannot see the process), when its lease has run out. A
``--resume`` of a run whose owner is not gone is refused; of one whose owner is gone, it takes
the run over with a compare-and-set of the owner row, so of two racing resumes one wins. An
owner writes only while the row is still its own: one that was taken over (a machine that
slept past its lease) stops without writing, so the log counts only what the owner played.
"""

from __future__ import annotations

import contextlib
import os
import platform
import sqlite3
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import BadInput, DealsearchError
from .rules import decode
from .schema import write_failed

LEASE_SECONDS = 120.0  # an owner on another machine is gone this long after its last renewal
RENEW_SECONDS = 10.0   # the lease is renewed with each commit, and at least this often

class RunOwned(BadInput):
    """``--resume`` of a run that a live process plays: exit status 2."""


class RunTakenOver(DealsearchError):
    """This process's run was taken over by another (it stopped without writing): exit 1."""


@dataclass(frozen=True)
class Owner:
    """A process that owns (or would own) a run."""

    pid: int
    host: str
    process_start: str | None
    token: str

    @classmethod
    def this_process(cls) -> Owner:
        """The running process, with a token of its own."""
        pid = os.getpid()
        return cls(pid, platform.node(), process_start(pid), uuid.uuid4().hex)


def process_start(pid: int) -> str | None:
    """When process ``pid`` started, as text that differs for a later process given the same
    pid (Linux: the boot id and the start time in clock ticks); None where unknown."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return None
    return f"{boot}:{stat.rsplit(')', 1)[1].split()[19]}"


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:   # another user's process: it exists
        return True
    return True


# The tokens this process holds now: a row of this very process is gone unless its token is
# here (a run that ended here but could not release its row, resumed by the same process).
_HELD: set[str] = set()


def is_gone(owner: dict[str, Any], now: float | None = None) -> bool:
    """Whether the owner in an ``owners`` row has stopped without a word (kill -9, a power
    cut, a lost machine). On its own machine its process decides (a stopped or sleeping
    process still owns its run); elsewhere its lease."""
    now = time.time() if now is None else now
    if owner["pid"] == os.getpid() and owner["host"] == platform.node():
        return owner["token"] not in _HELD
    if owner["host"] == platform.node():
        if not _running(owner["pid"]):
            return True
        if owner["process_start"] is not None:
            started = process_start(owner["pid"])
            if started is not None:
                return started != owner["process_start"]
    return owner["lease_until"] < now


def owner_of(db: sqlite3.Connection, run_id: int) -> dict[str, Any] | None:
    """The run's owner row, or None; :class:`~dealsearch.log.rules.DamagedRow` if the row
    breaks the log's rules (a pid that is no process id cannot be asked about)."""
    cursor = db.execute("SELECT run_id, token, pid, host, process_start, since, lease_until"
                        " FROM owners WHERE run_id = ?", (run_id,))
    row = cursor.fetchone()
    if row is None:
        return None
    return decode("owners", dict(zip([c[0] for c in cursor.description], row, strict=True)))


def shown_status(status: str, owner: dict[str, Any] | None) -> str:
    """A run's status as readers show it: a ``running`` run whose owner is gone is
    ``stale``."""
    return "stale" if status == "running" and owner is not None and is_gone(owner) else status


def refuse_if_owned(db: sqlite3.Connection, run_id: int) -> dict[str, Any] | None:
    """Raise the refusal (:class:`RunOwned`) if a live process owns the run; else the owner
    row seen (None, or one whose owner is gone)."""
    seen = owner_of(db, run_id)
    if seen is not None and not is_gone(seen):
        raise refusal(run_id, seen)
    return seen


def describe(owner: dict[str, Any]) -> str:
    """``pid 4242 on host-a since 2026-12-01 15:50:03``."""
    since = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(owner["since"]))
    return f"pid {owner['pid']} on {owner['host']} since {since}"


def refusal(run_id: int, owner: dict[str, Any]) -> RunOwned:
    """The one line a resume of an owned run is refused with."""
    return RunOwned(f"run {run_id} is being played by {describe(owner)}: stop that process "
                    f"first (a run has one owner)")


def claim(db: sqlite3.Connection, run_id: int, owner: Owner,
          checked: Callable[[], None] | None = None) -> None:
    """Make ``owner`` the run's owner, unless a live process owns it (:class:`RunOwned`).

    The owner row seen is replaced only if it is still the one seen (compare-and-set in one
    write transaction), so of two processes taking over one run, one wins and the other is
    refused. ``checked`` is a test hook, called between judging the old owner and writing.
    """
    seen = refuse_if_owned(db, run_id)
    if checked is not None:
        checked()
    now = time.time()
    values = (owner.token, owner.pid, owner.host, owner.process_start, now,
              now + LEASE_SECONDS)
    try:
        db.execute("BEGIN IMMEDIATE")
        if seen is None:
            won = db.execute(
                "INSERT OR IGNORE INTO owners (token, pid, host, process_start, since,"
                " lease_until, run_id) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (*values, run_id)).rowcount == 1
        else:
            won = db.execute(
                "UPDATE owners SET token = ?, pid = ?, host = ?, process_start = ?, since = ?,"
                " lease_until = ? WHERE run_id = ? AND token = ?",
                (*values, run_id, seen["token"])).rowcount == 1
        if won:
            db.execute("UPDATE runs SET status = 'running', ended = NULL WHERE id = ?",
                       (run_id,))
        db.execute("COMMIT")
    except BaseException as error:
        _roll_back(db)
        if isinstance(error, sqlite3.OperationalError):   # a full disk: the run is as it was
            raise write_failed(db, error) from None
        raise
    if not won:  # another process took it between our look and our write
        winner = owner_of(db, run_id)
        if winner is None:
            raise RunOwned(f"run {run_id} was just taken by another process")
        raise refusal(run_id, winner)
    _HELD.add(owner.token)


def give_back(db: sqlite3.Connection, run_id: int, token: str, status: str,
              ended: float | None) -> None:
    """Undo :func:`claim` for a resume that stops before it plays (refused once it had the
    run: an old dealer, a bad checkpoint): the run is left as it was found, ``status`` and
    ``ended``, without an owner; one found ``running`` (its owner gone) reads
    ``interrupted``, since nobody plays it."""
    try:
        db.execute("BEGIN IMMEDIATE")
        if db.execute("DELETE FROM owners WHERE run_id = ? AND token = ?",
                      (run_id, token)).rowcount == 1:
            db.execute("UPDATE runs SET status = ?, ended = ? WHERE id = ?",
                       ("interrupted" if status == "running" else status,
                        ended if ended is not None else time.time(), run_id))
        db.execute("COMMIT")
    except BaseException as error:
        _roll_back(db)
        if isinstance(error, sqlite3.OperationalError):
            raise write_failed(db, error) from None
        raise
    _HELD.discard(token)


def _roll_back(db: sqlite3.Connection) -> None:
    """Roll back the open transaction, if SQLite has not already (a full disk may have)."""
    if db.in_transaction:
        with contextlib.suppress(sqlite3.Error):
            db.execute("ROLLBACK")


def hold_here(token: str) -> None:
    """This process now plays the run it holds with ``token`` (a new run's owner)."""
    _HELD.add(token)


def let_go(token: str) -> None:
    """This process no longer plays the run it held with ``token`` (its row, if a failed
    save left one, now reads as gone)."""
    _HELD.discard(token)


def hold(db: sqlite3.Connection, run_id: int, token: str, release: bool = False) -> None:
    """Inside a write transaction: renew the owner's lease (or, with ``release``, give the
    run up), or raise :class:`RunTakenOver` if the run is no longer the owner's."""
    if release:
        cursor = db.execute("DELETE FROM owners WHERE run_id = ? AND token = ?",
                            (run_id, token))
        _HELD.discard(token)
    else:
        cursor = db.execute("UPDATE owners SET lease_until = ? WHERE run_id = ? AND token = ?",
                            (time.time() + LEASE_SECONDS, run_id, token))
    if cursor.rowcount != 1:
        now = owner_of(db, run_id)
        by = describe(now) if now is not None else "another process"
        raise RunTakenOver(f"run {run_id} was taken over by {by}; this process stopped "
                           f"without writing to it")
