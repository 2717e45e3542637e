"""The backward walk as a strategy of the run service: ``reverse --along`` runs are started,
resumed, checkpointed and ended by the framework's :class:`~dealsearch.plugin.Runner`, as
searches are.

Task ``k`` walks back from the ``k``-th trick boundary of the deal's game
(:func:`~.reverse.starts_from`) and plays every starting deal it meets; its finds are those
whose game terminates and is longer (in cards) than the deal's. :meth:`ReverseStrategy.absorb`
takes the reports **in task order** (whichever worker finished first) and drops a deal an
earlier task found already, so a run finds the same deals in the same order on any workers,
and resumed. Every such deal is a find (:attr:`~ReverseStrategy.keeps_every_find`), not only
the run's new bests. The spec's ``settings`` hold the deal, ``tricks`` and ``max_states``.
"""

from __future__ import annotations

from typing import Any, cast

from ...plugin.commands import Report, SearchSpec, StrategyDefaults, Task
from .engine import play
from .notation import Deal, DealError, parse_deal
from .options import BeggarOptions
from .reverse import check_deal, game_states, starts_from


def walked_deal(spec: SearchSpec) -> Deal:
    """The deal a spec walks back along."""
    rules = cast(BeggarOptions, spec.options).game_rules
    return parse_deal(spec.settings["deal"], rules, "any")


class ReverseStrategy(StrategyDefaults):
    """BMN's walk back along a deal's game to longer deals (see the module's docstring)."""

    name = "reverse"
    command = "reverse"
    not_random = "the walk plays the deals that lead into one game, not random deals"
    keeps_every_find = True
    setting_names = ("deal", "tricks", "max_states")

    def __init__(self, spec: SearchSpec, checkpoint: dict[str, Any]) -> None:
        self.spec = spec
        rules = cast(BeggarOptions, spec.options).game_rules
        deal = walked_deal(spec)
        self.targets = game_states(deal, rules, spec.settings["tricks"])
        self.cards = play(deal, rules).cards   # a find's game is longer than this
        self.settled: int = checkpoint.get("settled", 0)   # tasks absorbed, in order
        self.found: list[str] = list(checkpoint.get("found", []))   # longer deals, in order
        self.seen = set(self.found)
        self.handed = self.settled   # tasks handed out
        self.held: dict[int, Report] = {}   # reports waiting for an earlier task's

    @classmethod
    def settle(cls, spec: SearchSpec) -> dict[str, Any]:
        """A 2-player deal of at most 64 cards, ``tricks`` and ``max_states`` positive."""
        cls.refuse_unknown(spec)
        for name in ("tricks", "max_states"):
            value = spec.settings.get(name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"a reverse run's {name} is a positive whole number, "
                                 f"not {value!r}")
        text = spec.settings.get("deal")
        if not isinstance(text, str):
            raise ValueError("a reverse run needs its deal")
        try:
            check_deal(walked_deal(spec))
        except (DealError, ValueError) as error:
            raise ValueError(f"bad reverse deal: {error}") from None
        return spec.settings

    total_deals = None

    @property
    def finished(self) -> bool:
        """Whether every trick boundary's walk is absorbed."""
        return self.settled == len(self.targets)

    def next_task(self, units: int = 1) -> Task | None:
        """The walk from the next trick boundary, or None once every one is handed out."""
        if self.handed == len(self.targets):
            return None
        self.handed += 1
        return Task(self.handed - 1, {"state": list(self.targets[self.handed - 1]),
                                      "cards": self.cards})

    def absorb(self, report: Report) -> list[Report]:
        """The reports now due in task order, each without the deals an earlier one found;
        a report of a task absorbed already (handed out again after the run went back to
        its last commit) is dropped."""
        if report.key < self.settled or report.key in self.held:
            return []
        self.held[report.key] = report
        due = []
        while self.settled in self.held:
            settled = self.held.pop(self.settled)
            settled.finds = [(text, result) for text, result in settled.finds
                             if text not in self.seen]
            for text, _ in settled.finds:
                self.seen.add(text)
                self.found.append(text)
            self.settled += 1
            due.append(settled)
        return due

    def checkpoint(self) -> dict[str, Any]:
        """The walks absorbed and the longer deals they found."""
        return {"settled": self.settled, "found": self.found}

    @staticmethod
    def work(spec: SearchSpec, task: Task) -> Report:
        """Worker side: walk back from one trick boundary; play every starting deal met,
        and report those that terminate longer than the deal."""
        game = spec.plugin
        rules = cast(BeggarOptions, spec.options).game_rules
        report = Report(task.key, outcomes=[0] * len(game.outcomes))
        for text, start in starts_from(tuple(task.payload["state"]), rules,
                                       spec.settings["max_states"]):
            result = play(start, rules)
            report.deals += 1
            report.total += result.cards
            report.outcomes[game.outcomes.index(result.outcome)] += 1
            if result.outcome == "win" and result.cards > task.payload["cards"]:
                report.finds.append((text, result))
        return report
