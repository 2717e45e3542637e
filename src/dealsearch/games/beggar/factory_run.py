"""The factory as a run: rounds of expansions shared across workers, checkpointed, resumable.

The best-first search of :mod:`.factory` is cut into *rounds*: the coordinator pops up to
``width`` cycles off its frontier and hands each to a worker as one task (:func:`expand_node`:
the cycle's first state and a seed of its own), then takes the round's reports back **in task
order**, whichever worker finished first, and pushes the new cycles. A round depends only on
the state before it, so a run is the same (for a seed, a ``width`` and a node budget) on one
process, on every core or on a Dask cluster; and a checkpoint taken between rounds is all a
resumed run needs to go on exactly as the run left alone would have (:class:`Factory`).

The frontier keeps cycles as :class:`Node` records (a state, the key and what the priority
needs), not as their states: a worker rebuilds the cycle from its state with the reference
engine, so tasks and checkpoints stay small however long the cycles.

>>> from dealsearch.games.beggar.notation import parse_deck
>>> factory = Factory(Settings("standard", seed=1, max_nodes=4, width=2, samples=300),
...                   seed_nodes(parse_deck("------JJQQK")))
>>> found = list(factory.run_serial())
>>> factory.stats.nodes, factory.finished
(4, True)
"""

from __future__ import annotations

import hashlib
import heapq
import random
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass, field
from typing import Any

from .factory import (
    FactoryStats,
    Loop,
    distance,
    expand,
    find_loop,
    seed_loops,
    starting_deals,
)
from .notation import STANDARD, Deal, Rules, format_deal, parse_deal
from .options import get_rules


@dataclass(frozen=True)
class Settings:
    """What a factory run is asked to do (stored with the run, so ``--resume`` needs only
    the run id). ``width`` (cycles expanded per round) fixes the run's course: the same
    width gives the same run on any number of workers."""

    rules: str = "standard"
    seed: int = 1
    max_nodes: int | None = None
    max_seconds: float | None = None
    width: int = 16
    samples: int = 4096
    keep: int = 16
    max_period: int = 1000
    double: float = 0.4
    crowding: float = 0.05
    balance: float = 0.5
    balance_within: int = 0
    stall: int | None = 300
    max_states: int = 20_000
    stop_after: int | None = None

    def to_json(self) -> dict[str, Any]:
        """As plain data."""
        return asdict(self)

    @property
    def rules_object(self) -> Rules:
        """The rules."""
        return get_rules(self.rules)


@dataclass(frozen=True)
class Node:
    """A cycle on the frontier, without its states: ``deal`` is its first state (the player
    to move first) in compact notation, from which :func:`rebuild` plays it again."""

    deal: str
    key: str
    parent: str
    period_cards: int
    period_tricks: int
    counts: tuple[int, ...]
    imbalance: int

    @classmethod
    def of(cls, loop: Loop, rules: Rules) -> Node:
        """The node of a cycle."""
        return cls(format_deal(loop.deal(), rules), loop.key, loop.parent, loop.period_cards,
                   loop.period_tricks, loop.counts(len(rules.deck)), loop.imbalance())

    def to_json(self, compact: bool = False) -> list[Any]:
        """As a JSON list; ``compact`` leaves out the key and the parent (a node on the
        frontier needs neither: its state rebuilds its cycle, key included): the checkpoint of
        ``--seed 1 --nodes 1000`` is 1.7 MB instead of 2.9 MB."""
        names = ["", ""] if compact else [self.key, self.parent]
        return [self.deal, *names, self.period_cards, self.period_tricks, list(self.counts),
                self.imbalance]

    @classmethod
    def from_json(cls, data: list[Any]) -> Node:
        """From :meth:`to_json`."""
        deal, key, parent, cards, tricks, counts, imbalance = data
        return cls(deal, key, parent, cards, tricks, tuple(counts), imbalance)


def rebuild(node: Node, rules: Rules) -> Loop:
    """The cycle of a node, its states in the order it was found with (the game of its first
    state goes round the cycle from that state)."""
    loop = find_loop(parse_deal(node.deal, rules, "any"), rules, node.parent)
    assert loop is not None and loop.key == (node.key or loop.key), "a state of its cycle"
    return loop


def seed_nodes(deck: tuple[int, ...], rules_name: str = "standard", players: int = 2
               ) -> list[Node]:
    """The nodes of a small deck's cycles (:func:`seed_loops`)."""
    rules = get_rules(rules_name)
    return [Node.of(loop, rules) for loop in seed_loops(deck, rules, players)]


def _digest(key: str) -> str:
    """A short, stable name of a cycle key for the set of cycles met (keeps checkpoints
    small: 16 hex digits, collisions at 2^-64 per pair)."""
    return hashlib.blake2b(key.encode(), digest_size=8).hexdigest()


def node_seed(seed: int, node: int) -> int:
    """The PRNG seed of the ``node``-th expansion of a run: fixed by the run's seed and the
    node's number, not by which worker expands it."""
    return int.from_bytes(hashlib.blake2b(f"{seed}:{node}".encode(), digest_size=8).digest(),
                          "big")


@dataclass
class Child:
    """A cycle one move from an expanded one, as a worker reports it; ``starts`` and
    ``even`` only for cycles of the whole deck (its starting deals, and its most even
    state as a deal)."""

    node: Node
    starts: list[str] = field(default_factory=list)
    even: str = ""


def expand_node(settings: Settings, deal: str, key: str, parent: str, seed: int
                ) -> tuple[list[Child], int]:
    """Worker side: the cycles one move from the node's cycle (up to twice ``keep``: the
    coordinator drops those met before), and the number of candidate games played. Cycles
    of the whole deck come with their starting deals (walking backwards, the costly part)."""
    rules = settings.rules_object
    loop = rebuild(Node(deal, key, parent, 0, 0, (), 0), rules)
    stats = FactoryStats()
    children = expand(loop, rules.deck, random.Random(seed), {loop.key}, rules,
                      settings.samples, 2 * settings.keep, settings.max_period,
                      settings.double, stats=stats)
    out = []
    for child in children:
        node = Node.of(child, rules)
        if distance(node.counts, rules.deck) == 0:
            out.append(Child(node, starting_deals(child, rules, settings.max_states),
                             most_even_state(child, rules)))
        else:
            out.append(Child(node))
    return out, stats.played


def most_even_state(loop: Loop, rules: Rules) -> str:
    """The cycle's state nearest to a dealt one (hand sizes as dealt), as a deal (the player
    to move first); the first such state in the cycle's order."""
    ideal = Rules.deal_sizes(loop.cards, loop.players)
    best = min(loop.states, key=lambda hands: sum(
        abs(len(hand) - size) for hand, size in zip(hands, ideal, strict=True)))
    return format_deal(Deal(best), rules)


@dataclass
class Task:
    """One expansion: the node's number in the run, the node, its seed."""

    number: int
    node: Node
    seed: int


Entry = tuple[float, int, float, Node]


class Factory:
    """The coordinator's side of a factory run: the frontier, the cycles met, the budget.

    :meth:`next_round` hands out a round of tasks, :meth:`absorb` takes their reports in
    task order and returns the new cycles of the whole deck; :meth:`checkpoint` (between
    rounds) is everything a resumed run needs (``Factory(settings, seeds, checkpoint)``).
    ``clock`` is for tests (the run's seconds count a ``--time`` budget).
    """

    def __init__(self, settings: Settings, seeds: list[Node],
                 checkpoint: dict[str, Any] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.settings = settings
        self.rules = settings.rules_object
        self.target = self.rules.deck
        self.seeds = seeds
        self.clock = clock
        self.rng = random.Random(settings.seed)
        self.stats = FactoryStats(nearest=sum(self.target))
        self.frontier: list[Entry] = []
        self.seen: set[str] = set()
        self.expanded: dict[tuple[int, ...], int] = {}
        self.yielded: set[str] = set()
        self.best: tuple[int, int] = (sum(self.target) + 1, 0)
        # the nearest cycle met over every restart: (cards from the whole deck, imbalance)
        self.closest: tuple[int, int] = self.best
        self.progress = 0
        self.with_starts = 0
        self.finished = False
        if checkpoint:
            self._load(checkpoint)
        else:
            self._restart()
        self.started = clock() - self.stats.seconds

    # ------------------------------------------------------------- the search state

    def _priority(self, node: Node) -> float:
        gap = distance(node.counts, self.target)
        settings = self.settings
        return (gap + settings.crowding * self.expanded.get(node.counts, 0)
                + (settings.balance * node.imbalance if gap <= settings.balance_within else 0))

    def _restart(self) -> None:
        """Start again from the seeds, forgetting everything but the cycles yielded."""
        self.stats.restarts += 1
        self.frontier, self.seen, self.expanded = [], set(), {}
        self.best, self.progress = (sum(self.target) + 1, 0), self.stats.nodes
        for node in self.seeds:
            self._push(node)

    def _push(self, node: Node) -> bool:
        """Put a cycle on the frontier unless met before; whether it is new."""
        digest = _digest(node.key)
        if digest in self.seen:
            return False
        self.seen.add(digest)
        self.stats.cycles += 1
        gap = distance(node.counts, self.target)
        self.stats.nearest = min(self.stats.nearest, gap)
        score = (gap, node.imbalance if gap == 0 else 0)
        if score < self.best:
            self.best, self.progress = score, self.stats.nodes
        score = (gap, node.imbalance)
        self.closest = min(self.closest, score)
        heapq.heappush(self.frontier, (self._priority(node), node.period_tricks,
                                       self.rng.random(), node))
        return True

    def _spent(self) -> bool:
        settings, stats = self.settings, self.stats
        stats.seconds = self.clock() - self.started
        return ((settings.max_nodes is not None and stats.nodes >= settings.max_nodes)
                or (settings.max_seconds is not None and stats.seconds >= settings.max_seconds)
                or (settings.stop_after is not None and self.with_starts >= settings.stop_after))

    # ------------------------------------------------------------- rounds

    def next_round(self) -> list[Task]:
        """The next round's tasks (none once a budget is spent: then :attr:`finished`)."""
        settings = self.settings
        if self._spent():
            self.finished = True
            return []
        stalled = settings.stall is not None and self.stats.nodes - self.progress >= settings.stall
        if stalled or not self.frontier:
            if settings.stall is None and not self.frontier:
                self.finished = True
                return []
            self._restart()
        width = settings.width
        if settings.max_nodes is not None:
            width = min(width, settings.max_nodes - self.stats.nodes)
        tasks: list[Task] = []
        while self.frontier and len(tasks) < width:
            pushed, period, tie, node = heapq.heappop(self.frontier)
            now = self._priority(node)
            if now > pushed and self.frontier and self.frontier[0][0] < now:  # crowded since
                heapq.heappush(self.frontier, (now, period, tie, node))
                continue
            self.expanded[node.counts] = self.expanded.get(node.counts, 0) + 1
            number = self.stats.nodes
            self.stats.nodes += 1
            tasks.append(Task(number, node, node_seed(settings.seed, number)))
        return tasks

    def absorb(self, reports: list[tuple[list[Child], int]]) -> list[Child]:
        """The round's reports, in the order of its tasks: push the new cycles (at most
        ``keep`` per node) and return those of the whole deck not yielded before."""
        whole: list[Child] = []
        for children, played in reports:
            self.stats.played += played
            kept = 0
            for child in children:
                if kept >= self.settings.keep:
                    break
                if not self._push(child.node):
                    continue
                kept += 1
                node = child.node
                if distance(node.counts, self.target) == 0 and node.key not in self.yielded:
                    self.yielded.add(node.key)
                    self.stats.full += 1
                    periods = self.stats.periods
                    periods[node.period_tricks] = periods.get(node.period_tricks, 0) + 1
                    self.with_starts += bool(child.starts)
                    whole.append(child)
        self.stats.seconds = self.clock() - self.started
        return whole

    def run_serial(self) -> Iterator[Child]:
        """Run to the budget in this process, yielding each new cycle of the whole deck."""
        while True:
            tasks = self.next_round()
            if not tasks:
                return
            yield from self.absorb([expand_node(*task_args(self.settings, task))
                                    for task in tasks])

    # ------------------------------------------------------------- checkpoint

    def checkpoint(self) -> dict[str, Any]:
        """The state between two rounds, as plain data."""
        version, state, gauss = self.rng.getstate()
        return {
            "rng": [version, list(state), gauss],
            "stats": asdict(self.stats),
            "frontier": [[p, period, tie, node.to_json(compact=True)]
                         for p, period, tie, node in self.frontier],
            "seen": sorted(self.seen),
            "expanded": [[list(counts), n] for counts, n in self.expanded.items()],
            "yielded": sorted(self.yielded),
            "best": list(self.best), "closest": list(self.closest),
            "progress": self.progress,
            "with_starts": self.with_starts,
        }

    def _load(self, data: dict[str, Any]) -> None:
        version, state, gauss = data["rng"]
        self.rng.setstate((version, tuple(state), gauss))
        stats = dict(data["stats"])
        stats["periods"] = {int(k): v for k, v in stats["periods"].items()}
        self.stats = FactoryStats(**stats)
        # heap order is kept as stored: the list was a heap when it was saved
        self.frontier = [(p, period, tie, Node.from_json(node))
                         for p, period, tie, node in data["frontier"]]
        self.seen = set(data["seen"])
        self.expanded = {tuple(counts): n for counts, n in data["expanded"]}
        self.yielded = set(data["yielded"])
        self.best = (data["best"][0], data["best"][1])
        self.closest = (data["closest"][0], data["closest"][1])
        self.progress = data["progress"]
        self.with_starts = data["with_starts"]


def task_args(settings: Settings, task: Task) -> tuple[Settings, str, str, str, int]:
    """The arguments of :func:`expand_node` for a task (plain data: any backend ships them)."""
    return settings, task.node.deal, task.node.key, task.node.parent, task.seed


def grow(seeds: Iterable[Loop], rules: Rules = STANDARD, seed: int = 0,
         max_nodes: int | None = None, max_seconds: float | None = None, width: int = 16,
         **tuning: Any) -> Iterator[Loop]:
    """Grow the ``seeds`` in this process and yield every cycle of the rules' whole deck,
    each once: the run of :class:`Factory` (rounds of ``width`` expansions, best-first on the
    distance to the whole deck, restarts after a stall), with its other settings
    (``samples``, ``balance``, ...) in ``tuning``."""
    settings = Settings(rules.name, seed, max_nodes, max_seconds, width, **tuning)
    factory = Factory(settings, [Node.of(loop, rules) for loop in seeds])
    for child in factory.run_serial():
        yield rebuild(child.node, rules)
