"""What a person sees of a search: a screenful, however many finds the search logs.

A search of a game rich in cycles finds thousands a second, and printing each buried the
terminal (20,682 lines for a 20-second Spite search). So the screen shows every new best (a
run has only about ln(deals) of them, the event a record hunter waits for) and, while the run
is young, the first deal of each new cycle (by catalogue id); past a few lines it folds cycles
into one-line summaries, further and further apart, and the progress bar keeps the live
counts. The end is a short table. Only the screen changes: every find is still logged, and
``--json`` still streams every one. A deal that only ties the best is no new best: the log
may keep it as the run's example deal (:meth:`~dealsearch.search.runner.Runner._keep`), the screen
does not show it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from ..game import Game
from ..log import Find
from ..text import count, counted, duration, measures, ranks_text, rate, table

YOUNG_SECONDS = 10.0   # cycles are printed one by one only this long into the session ...
CYCLE_LINES = 15       # ... and only this many
FIRST_SUMMARY = 10.0   # seconds between summary lines: doubling from this, up to LAST_SUMMARY
LAST_SUMMARY = 320.0


class SearchScreen:
    """Turns a run's finds into the lines a person reads (``write`` prints one line)."""

    def __init__(self, game: Game, write: Callable[[str], None],
                 clock: Callable[[], float] = time.monotonic, objective: str | None = None
                 ) -> None:
        self.game = game
        self.objective = objective or game.measures[0]   # what a new best must beat
        self.record: int | None = None       # the run's best by the objective, so far
        self.write = write
        self.clock = clock
        self.started = clock()
        self.cycles = 0                      # cycle finds this session
        self.distinct: set[str] = set()      # their catalogue ids
        self.longest: dict[str, int] = {}    # the longest period met (by the first measure)
        self.best: Find | None = None
        self.cycle_lines = 0
        self.folded = 0                      # finds not printed since the last summary
        self.summary_every = FIRST_SUMMARY
        self.last_summary = self.started

    def find(self, find: Find) -> None:
        """Show a find, or fold it into the next summary."""
        now = self.clock() - self.started
        if find.outcome == "cycle":
            self.cycles += 1
            key = find.cycle_id or find.deal   # a game without a catalogue: each deal its own
            new = key not in self.distinct
            self.distinct.add(key)
            first = self.game.measures[0]
            if find.period.get(first, 0) > self.longest.get(first, -1):
                self.longest = dict(find.period)
            if new and now < YOUNG_SECONDS and self.cycle_lines < CYCLE_LINES:
                self.cycle_lines += 1
                self.write(self._cycle_line(find))
            else:
                self.folded += 1
        else:
            value = find.measures.get(self.objective)
            if self.record is None or value is None or value > self.record:
                self.best, self.record = find, value
                self.write(f"best {measures(find.measures)}: {find.deal}")
        if self.folded and self.clock() - self.last_summary >= self.summary_every:
            self.write(self.summary())

    def resume_from(self, best: dict[str, Any] | None) -> None:
        """A resumed run: only what beats its best so far (``{measure: value}``) is new."""
        if best is not None:
            self.record = best.get(self.objective)

    def summary(self) -> str:
        """One line: the session so far (and the clock of the next one starts)."""
        self.last_summary = self.clock()
        self.summary_every = min(2 * self.summary_every, LAST_SUMMARY)
        self.folded = 0
        elapsed = duration(self.last_summary - self.started)
        parts = []
        if self.cycles:
            parts.append(f"{self._cycle_counts()}")
        if self.best is not None:
            parts.append(f"best {measures(self.best.measures)}")
        return f"after {elapsed}: {'; '.join(parts)}"

    def _cycle_counts(self) -> str:
        first = self.game.measures[0]
        return (f"{count(self.cycles)} cycles, {count(len(self.distinct))} distinct, longest "
                f"period {count(self.longest.get(first))} {first}")

    def _cycle_line(self, find: Find) -> str:
        name = f"cycle {find.cycle_id}" if find.cycle_id else "cycle"
        return (f"{name}: period {measures(find.period, sep=' / ')}, entered after "
                f"{measures(find.entry, sep=' / ')}: {find.deal}")

    def end(self, summary: Any, resumed: bool = False) -> str:
        """The table a run ends with: deals, rate, each outcome, the cycles and the best."""
        # A resumed run's counts are the run's, over every session; its wall time is this
        # session's: each says which it is.
        head = (f"run {summary.run_id} {summary.status}: {count(summary.deals)} deals in "
                f"{duration(summary.seconds)}{' in all' if resumed else ''} "
                f"({rate(summary.deals, summary.seconds)})")
        if getattr(summary, "wall", None) is not None:
            head += (f"; this session {duration(summary.wall)} wall" if resumed
                     else f", {duration(summary.wall)} wall")
        rows: list[list[Any]] = []
        for outcome, n in summary.outcomes.items():
            note = ""
            if outcome == "cycle" and self.cycles:
                note = self._cycle_counts().split(", ", 1)[1]
                if resumed:  # the row counts the run; the note only what this session saw
                    note = f"this session: {note}"
            rows.append([outcome, n, note])
        lines = [head, table(rows, ["outcome", "deals", ""], left=(0, 2), indent="  ")]
        if getattr(summary, "ranks", None) is not None:
            lines.append(f"  ranks played: {ranks_text(summary.ranks)}")
        best = summary.best
        if best:
            lines.append(f"  best: {measures(best, self.game.measures)}: {best['deal']}")
        else:
            lines.append("  best: none (no game ended)")
        if getattr(summary, "checked", None) is not None:
            lines.append(f"  cross-checked: {counted(summary.checked, 'chunks')} replayed on the "
                         "CPU this session, all equal")
        return "\n".join(lines)
