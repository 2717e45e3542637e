"""The record log: one SQLite file holding every run and every find (see docs/log-schema.md).

- :mod:`.schema`: this release's tables, and how every log is opened (defensively, and only
  if it is a log of this release);
- :mod:`.rules`: what each row must hold, the same for every reader and for the check;
- :mod:`.store`: :class:`RecordLog`, which writes and reads a log;
- :mod:`.finds`: a find, as a search hands it to the log and as readers get it back;
- :mod:`.run`: :class:`ManagedRun`, one run from its start to its end;
- :mod:`.ownership`: the one process that plays a run;
- :mod:`.damage`, :mod:`.check` and :mod:`.recover`: a damaged log named, checked
  (``dealsearch log check``) and what it still holds saved (``dealsearch log recover``).
"""

from .finds import Find, iter_lines
from .run import ManagedRun
from .schema import LOST
from .store import RecordLog

__all__ = ["LOST", "Find", "ManagedRun", "RecordLog", "iter_lines"]
