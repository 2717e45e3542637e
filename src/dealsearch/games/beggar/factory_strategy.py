"""The cycle factory as a strategy of the run service: ``factory`` runs are started, resumed,
checkpointed and ended by the framework's :class:`~dealsearch.plugin.Runner`, as searches are.

The run is :class:`~.factory_run.Factory`'s rounds: :meth:`FactoryStrategy.next_task` hands
out a round's expansions one task each, then nothing until every report of the round is back;
:meth:`~FactoryStrategy.absorb` keeps the reports until then and takes them **in task order**
(whichever worker finished first), so a run is the same for a seed, a width and a node budget
on any workers. The round's new cycles of the whole deck come back as one report whose finds
are each cycle's state (hands of any sizes) and its starting deals, every one with the cycle's
family and most even state in its details; the runner commits them with the checkpoint (the
factory between rounds) before the command prints them. The spec's ``settings`` hold the
factory's options (:class:`~.factory_run.Settings` but the rules and the seed, which are the
spec's) and its seed cycles (``seeds``, as :class:`~.factory_run.Node` lists), so a resumed
run needs only its id.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any, cast

from ...plugin import GameResult
from ...plugin.commands import Report, SearchSpec, StrategyDefaults, Task, count
from .catalogue import key_id
from .engine import play
from .factory_run import Child, Factory, Node, Settings, expand_node
from .families import family_of
from .notation import parse_deal
from .options import BeggarOptions

# Settings the spec holds for the factory; the rules and the seed are the spec's own, and a
# --time budget is the runner's.
SETTINGS = tuple(f.name for f in fields(Settings) if f.name not in ("rules", "seed",
                                                                       "max_seconds"))


def factory_settings(spec: SearchSpec) -> Settings:
    """The factory's settings of a spec."""
    chosen = {k: v for k, v in spec.settings.items() if k != "seeds"}
    return Settings(cast(BeggarOptions, spec.options).rules, spec.seed, **chosen)


class FactoryStrategy(StrategyDefaults):
    """BMN's cycle factory, round by round (see the module's docstring)."""

    name = "factory"
    command = "factory"
    not_random = "the factory builds cycles, it plays no random deals"
    counts_games = False   # its deals are the candidate games played; its outcomes its cycles
    setting_names = (*SETTINGS, "seeds")

    def __init__(self, spec: SearchSpec, checkpoint: dict[str, Any]) -> None:
        self.spec = spec
        self.settings = factory_settings(spec)
        self.rules = self.settings.rules_object
        seeds = [Node.from_json(node) for node in spec.settings["seeds"]]
        self.factory = Factory(self.settings, seeds, checkpoint.get("factory"))
        # the factory between rounds: a round's next_round changes it before its reports
        self.saved = checkpoint.get("factory") or self.factory.checkpoint()
        self.round: list[int] = []          # the tasks of the round in flight, in order
        self.waiting: list[Task] = []       # ... those not handed out yet
        self.reports: dict[int, Report] = {}  # ... those reported
        self.whole: dict[str, Child] = {}   # cycles found, by state, until the command tells

    @classmethod
    def budget(cls, settings: dict[str, Any]) -> list[str]:
        """``--nodes``: the cycles to expand."""
        nodes = settings.get("max_nodes")   # read from a log: a count, or no budget shown
        if not isinstance(nodes, int) or isinstance(nodes, bool) or nodes < 1:
            return []
        return [f"{count(nodes)} cycles to expand"]

    @classmethod
    def settle(cls, spec: SearchSpec) -> dict[str, Any]:
        """Settings of :class:`Settings` and a list of seed cycles."""
        cls.refuse_unknown(spec)
        seeds = spec.settings.get("seeds")
        if not isinstance(seeds, list) or not seeds:
            raise ValueError("a factory run needs its seed cycles")
        try:
            factory_settings(spec)
            for node in seeds:
                Node.from_json(node)
        except (TypeError, ValueError) as error:
            raise ValueError(f"bad factory settings: {error}") from None
        return spec.settings

    total_deals = None

    @property
    def finished(self) -> bool:
        """Whether the factory's budget (nodes, --stop-after) is spent."""
        return self.factory.finished and not self.round

    def next_task(self, units: int = 1) -> Task | None:
        """The next expansion of the round in flight, or of a new round once every report
        of the last is back; None while a round is outstanding, or once the budget is
        spent."""
        if not self.round:
            self.waiting = [Task(task.number, {"node": task.node.to_json(), "seed": task.seed})
                            for task in self.factory.next_round()]
            self.round = [task.key for task in self.waiting]
        return self.waiting.pop(0) if self.waiting else None

    def absorb(self, report: Report) -> list[Report]:
        """Keep a report until its round is complete; then absorb the round in task order and
        return one report of its new whole-deck cycles. A report of no task in flight (one
        handed out before the run went back to its last commit) is dropped."""
        if report.key not in self.round or report.key in self.reports:
            return []
        self.reports[report.key] = report
        if len(self.reports) < len(self.round):
            return []
        reports = [self.reports[key] for key in self.round]
        self.round, self.reports = [], {}
        whole = self.factory.absorb([(r.state["children"], r.state["played"])
                                     for r in reports if r.state is not None])
        self.saved = self.factory.checkpoint()
        done = Report(reports[0].key, deals=sum(r.state["played"] for r in reports
                                                if r.state is not None),
                      outcomes=[0] * len(self.spec.plugin.outcomes))
        done.outcomes[self.spec.plugin.outcomes.index("cycle")] = len(whole)
        for child in whole:
            self.whole[child.node.deal] = child
            self._add_finds(done, child)
        return [done]

    def _add_finds(self, report: Report, child: Child) -> None:
        """The cycle's state as a deal (hands of any sizes), then each starting deal; each
        says the cycle's family and most even state in its details."""
        node = child.node
        extra = {"family": family_of(node.deal, self.rules), "most_even": child.even,
                 "imbalance": node.imbalance}
        for text in (node.deal, *child.starts):
            found = play(parse_deal(text, self.rules, "any"), self.rules)
            report.finds.append((text, GameResult(found.outcome, found.measures, found.entry,
                                                  found.period, {**found.details, **extra})))
            report.cycles[text] = (node.key, key_id(node.key, self.rules))

    def told(self, deal: str) -> Child | None:
        """The whole-deck cycle whose state a find is (once: the command prints it), or
        None for a starting deal."""
        return self.whole.pop(deal, None)

    def checkpoint(self) -> dict[str, Any]:
        """The factory after the last round absorbed (a round in flight is redone on
        --resume)."""
        return {"factory": self.saved}

    @staticmethod
    def work(spec: SearchSpec, task: Task) -> Report:
        """Worker side: one expansion (:func:`~.factory_run.expand_node`)."""
        node = Node.from_json(task.payload["node"])
        children, played = expand_node(factory_settings(spec), node.deal, node.key,
                                       node.parent, task.payload["seed"])
        return Report(task.key, state={"children": children, "played": played})
