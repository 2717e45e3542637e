"""What SQLite says of a damaged or locked log, and the one line a command ends with then.

>>> is_damage(sqlite3.DatabaseError("database disk image is malformed"))
True
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from ..errors import DamagedLog
from .schema import BUSY_TIMEOUT, LogError

#: What reading a damaged log can raise: SQLite's errors, and text of its schema or of an
#: error message that is not UTF-8.
READ_ERRORS = (sqlite3.DatabaseError, UnicodeDecodeError)


def is_damage(error: BaseException) -> bool:
    """Is ``error`` SQLite saying that the file is damaged (not locked, not missing)? A
    table or column of this schema that SQLite cannot find is damage to the schema, and a
    value longer than the log's limit (:data:`dealsearch.log.schema.LIMITS`) a damaged row."""
    if isinstance(error, UnicodeDecodeError):
        return True
    if not isinstance(error, sqlite3.DatabaseError):
        return False
    code = getattr(error, "sqlite_errorcode", None)
    if code is not None and code & 0xFF in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB,
                                            sqlite3.SQLITE_TOOBIG):
        return True
    return any(words in str(error) for words in ("malformed", "not a database",
                                                 "no such column", "no such table",
                                                 "Could not decode", "too big"))


def is_locked(error: BaseException) -> bool:
    """Is ``error`` SQLite saying that another process holds the log's lock?"""
    code = getattr(error, "sqlite_errorcode", None)
    return isinstance(error, sqlite3.OperationalError) and (
        (code is not None and code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED))
        or "locked" in str(error))


def locked(path: str | Path) -> LogError:
    """The one line for a log whose lock another process held past the wait."""
    return LogError(f"{path} is locked by another process (a search writing it, or a tool "
                    f"holding it open) for over {BUSY_TIMEOUT:g} s: try again when it is done")


def damaged(path: str | Path, what: str) -> DamagedLog:
    """The one line a command ends with on a damaged log: what is wrong, and what to do."""
    what = " ".join(what.split())
    if len(what) > 200:   # SQLite may quote a whole damaged statement of the schema
        what = what[:200] + "..."
    return DamagedLog(f"{path} is damaged ({what}): dealsearch log check --db {path} lists the "
                      f"damage; dealsearch log recover --db {path} NEW.sqlite saves the rest")
