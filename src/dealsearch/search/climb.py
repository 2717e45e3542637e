"""Hill climbing with restarts: mutate the deal, keep what plays longer.

The inner loop is compiled: the game's own climber if it has one (a
:class:`~dealsearch.game.FastSearch` game), else
:class:`dealsearch.search._generic.Climber` on the game's kernel. One mutant per step (swap two
cards of different codes, move a card, swap cards between segments, rotate a segment),
accepted if it plays at least as long (plateaus are crossed) or, with ``escape=anneal``, with
the simulated-annealing probability exp(delta / T), T halving every ``HALF_LIFE`` games. After
``stall`` games without a new best the climber restarts from a fresh random deal (or near the
``--start`` deal); with ``restart=pool`` it keeps its ``POOL_SIZE`` best deals (the best of each
climb) and, once the pool is full, restarts ``POOL_MUTATIONS`` mutations away from one of them
(iterated local search); with ``restart=crossover`` it restarts from a child of two of them
(:func:`~dealsearch.search.base.crossover`: a memetic search, each climber its own population).
``kick`` mutations make each mutant (BMN: a larger neighbourhood).
A climber's state travels with its tasks, so any worker can continue it and a resumed run
picks it up.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields
from typing import Any, ClassVar

import numpy as np

from ..game import (
    FastSearch,
    GameError,
    PlaysBackwards,
    SearchClimber,
    backwards_refusal,
    histogram,
    specialised_climber,
    throughput_measure,
)
from ..strategies import StrategyDefaults, register_strategy
from ._generic import Climber
from .base import (
    Report,
    Task,
    compact,
    crossover,
    random_row,
    results_of,
    score,
)
from .spec import MAX_COUNT, SearchSpec, number, whole

SLICE_GAMES = 50_000      # games per task: a fraction of a second
HALF_LIFE = 5_000         # annealing: the temperature halves every this many games
COOLING = 0.5 ** (1 / HALF_LIFE)
RESTART_MUTATIONS = 4     # how far from --start a restart begins
POOL_SIZE = 8             # restart=pool|crossover: the best deals a climber keeps to restart near
POOL_MUTATIONS = 4        # ... and how far from one of them a restart begins
ESCAPES = ("none", "anneal")
RESTARTS = ("random", "pool", "crossover")  # where a stalled climber starts again
MAX_KICK = 16             # most mutations per mutant


@dataclass(frozen=True)
class ClimbSettings:
    """A climb's own options (the spec's ``settings``)."""

    start: str | None = None         # start every climber from this deal
    escape: str = "anneal"           # none | anneal (simulated annealing)
    stall: int = 5_000               # games without a new best before a restart
    temperature: float = 40.0        # annealing start temperature, in objective units
    reverse_every: int | None = None  # grow the best deal backwards every K new bests
    # random, pool (near one of the climber's best deals) or crossover (a child of two of them)
    restart: str = "random"
    kick: int = 1                    # mutations per mutant (a game's own climber)

    @classmethod
    def of(cls, spec: SearchSpec) -> ClimbSettings:
        """The settings of a (settled) climb spec."""
        return cls(**spec.settings)

    def check(self, spec: SearchSpec) -> None:
        """One ValueError for the first setting that is wrong, whoever wrote it."""
        for name in ("stall", "kick", "reverse_every"):
            value = getattr(self, name)
            if value is not None and not whole(value):
                raise ValueError(f"{name.replace('_', '-')} must be a whole number, not "
                                 f"{value!r}")
        if not (number(self.temperature) and 0 <= self.temperature < math.inf):
            raise ValueError(f"temperature must be a number of at least 0, not "
                             f"{self.temperature!r}")
        if self.start is not None and not isinstance(self.start, str):
            raise ValueError(f"start must be text, not {self.start!r}")
        if self.escape not in ESCAPES:
            raise ValueError(f"unknown escape {self.escape!r}: choose from {', '.join(ESCAPES)}")
        if self.restart not in RESTARTS:
            raise ValueError(f"unknown restart {self.restart!r}: choose from "
                             f"{', '.join(RESTARTS)}")
        if not 1 <= self.kick <= MAX_KICK:
            raise ValueError(f"kick must be 1 to {MAX_KICK}, not {self.kick!r}")
        if self.kick != 1 and not isinstance(spec.plugin, FastSearch):
            raise ValueError("--kick needs a climb of a game with its own climber")
        for name in ("stall", "reverse_every"):
            value = getattr(self, name)
            if value is not None and not 1 <= value <= MAX_COUNT:
                raise ValueError(f"{name.replace('_', '-')} must be 1 to {MAX_COUNT}, not "
                                 f"{value}")
        refusal = None if self.reverse_every is None else backwards_refusal(spec.plugin,
                                                                              spec.options)
        if refusal:
            raise ValueError(f"--reverse-every: {refusal}")
        if self.start is not None:
            self._check_start(spec)

    def _check_start(self, spec: SearchSpec) -> None:
        """The start is climbed as given (the run's deck and segments), or refused; never
        re-dealt. The game's parser says what does not fit (hands, sizes, cards)."""
        try:
            row = spec.plugin.parse(self.start or "", spec.options)
        except GameError as error:
            raise ValueError(f"--start: {error}") from None
        if sorted(row.tolist()) != sorted(spec.layout.deck.tolist()):
            raise ValueError("--start must hold exactly the searched deck's cards")


@register_strategy
class ClimbSearch(StrategyDefaults):
    """One climber per worker; each climber has at most one task in flight.

    With a deal budget each climber gets a fixed share of it up front and plays it in slices of
    ``SLICE_GAMES``: which games a climber plays never depends on which worker is idle first,
    so a seed (and a number of climbers) gives the same run, resumed or not.
    """

    name = "climb"
    setting_names: ClassVar[tuple[str, ...]] = tuple(f.name for f in fields(ClimbSettings))
    not_random = ("a climb's lengths are not random deals (it plays mutants of its best "
                  "deals, many of them near-copies of their parent)")

    def __init__(self, spec: SearchSpec, checkpoint: dict[str, Any]) -> None:
        self.spec = spec
        climbers = spec.worker_count
        saved = checkpoint.get("climbers", {})
        self.states: dict[int, dict[str, Any] | None] = {
            c: saved.get(str(c)) for c in range(climbers)}
        self.busy: set[int] = set()
        self.shares = None if spec.deals is None else _shares(spec.deals, climbers)
        played = checkpoint.get("played")
        if played is None:  # a checkpoint from before per-climber counts: as they were dealt
            played = {str(c): n for c, n in
                      enumerate(_shares(int(checkpoint.get("games", 0)), climbers))}
        self.done_games = [int(played.get(str(c), 0)) for c in range(climbers)]
        self.handed = list(self.done_games)  # games handed out, done or in flight

    @property
    def total_deals(self) -> int | None:
        """Games the whole run will play, if bounded."""
        return self.spec.deals

    task_deals = SLICE_GAMES   # games of one unit of work (a slice is a few units)

    def next_task(self, units: int = 1) -> Task | None:
        """A slice of ``units`` x SLICE_GAMES games for an idle climber with games left, or
        None. A climber plays the same games however its work is sliced."""
        for climber, state in self.states.items():
            if climber in self.busy:
                continue
            games = SLICE_GAMES * units
            if self.shares is not None:
                games = min(games, self.shares[climber] - self.handed[climber])
                if games < 1:
                    continue
            self.busy.add(climber)
            self.handed[climber] += games
            return Task(climber, {"state": state, "games": games})
        return None

    def absorb(self, report: Report) -> list[Report]:
        """A climber's slice is done: keep its new state."""
        self.busy.discard(report.key)
        self.states[report.key] = report.state
        self.done_games[report.key] += report.deals
        return [report]

    @staticmethod
    def work(spec: SearchSpec, task: Task) -> Report:
        """Worker side: :func:`climb_slice`."""
        return climb_slice(spec, task)

    @classmethod
    def settle(cls, spec: SearchSpec) -> dict[str, Any]:
        """The spec's settings checked (:class:`ClimbSettings`), with the defaults."""
        cls.refuse_unknown(spec)
        settings = ClimbSettings(**spec.settings)
        settings.check(spec)
        return asdict(settings)

    @property
    def finished(self) -> bool:
        """Whether the budget of games is spent."""
        return self.shares is not None and self.done_games == self.shares

    def checkpoint(self) -> dict[str, Any]:
        """Each climber's state (current and best deal, scores, PRNG) and games played; a
        slice in flight is redone after a crash."""
        return {"climbers": {str(c): s for c, s in self.states.items() if s is not None},
                "games": sum(self.done_games),
                "played": {str(c): n for c, n in enumerate(self.done_games)}}


def _shares(games: int, climbers: int) -> list[int]:
    """``games`` split between climbers as evenly as possible, climber 0 first."""
    return [games // climbers + (c < games % climbers) for c in range(climbers)]


def climber_for(spec: SearchSpec, stream: int) -> SearchClimber:
    """The game's own fast climber if it has one (kicked ``kick`` times a mutant: the climb's
    setting), else the generic compiled climber."""
    game, options = spec.plugin, spec.options
    objective = spec.objective or game.measures[0]
    fast = specialised_climber(game, options, spec.seed, stream, objective)
    if fast is not None:
        kick = ClimbSettings.of(spec).kick
        if kick != 1:  # the default: a climber need not be told
            fast.kick = kick
        return fast
    layout = spec.layout
    return Climber(game.kernel(options), layout.deck, layout.segments, layout.unordered,
                   layout.fixed, spec.seed, stream, game.measures.index(objective),
                   game.outcomes.index("cycle") if "cycle" in game.outcomes else -1,
                   len(game.outcomes))


def climb_slice(spec: SearchSpec, task: Task) -> Report:
    """Run one climber for a slice of games and report its finds and new state."""
    state = task.payload["state"]
    game, options = spec.plugin, spec.options
    settings = ClimbSettings.of(spec)
    report = Report.for_game(task.key, game)
    hists, widths = report.hist_args(game)
    climber = climber_for(spec, task.key)
    counts = np.zeros(len(game.outcomes), dtype=np.int64)
    count_index = game.measures.index(throughput_measure(game))
    cycle = game.outcomes.index("cycle") if "cycle" in game.outcomes else -1

    def restart(first: bool) -> None:
        shuffler = np.random.default_rng([spec.seed, task.key, state["restarts"]])
        pool = state.get("pool")
        if pool is not None and not first:
            _keep_best(pool, climber.best_row.tolist(), climber.best_score)
        if pool is not None and len(pool) == POOL_SIZE and settings.restart == "crossover":
            one, other = (np.array(pool[i][1], dtype=np.uint8)
                          for i in shuffler.choice(POOL_SIZE, 2, replace=False))
            row = crossover(spec.layout, one, other, shuffler)
            # A child equal to a deal of the pool (parents alike where the stretch fell) would
            # climb a summit already climbed: move it off as a pool restart does.
            mutations = POOL_MUTATIONS if any(row.tolist() == kept for _, kept in pool) else 0
        elif pool is not None and len(pool) == POOL_SIZE:
            row = np.array(pool[int(shuffler.integers(POOL_SIZE))][1], dtype=np.uint8)
            mutations = POOL_MUTATIONS
        elif settings.start is not None:
            row = game.parse(settings.start, options)
            mutations = 0 if first else RESTART_MUTATIONS
        else:
            row = random_row(spec.layout, shuffler)
            mutations = 0
        climber.reset(row, 0, settings.temperature)
        if mutations:
            climber.perturb(mutations)
        outcome, measures, *_ = climber.play_current()
        counts[outcome] += 1
        report.deals += 1
        report.total += measures[count_index]
        for measure, value in zip(game.measures, measures, strict=True):  # every game counted
            width, bins = histogram(game, measure)
            report.histograms[measure][min(value // width, bins - 1)] += 1
        if outcome == cycle:
            row = climber.current_row
            report.finds.append((compact(row, spec), results_of(spec, row[None, :])[0]))

    if state is None:
        state = {"restarts": 0, "record": 0, "improvements": 0}
        if settings.restart in ("pool", "crossover"):
            state["pool"] = []
        restart(first=True)
    else:
        climber.reset(np.array(state["current"], dtype=np.uint8), state["score"],
                      state["temperature"])
        if "best" in state:  # (a checkpoint from before it was kept restarts from current)
            climber.restore_best(np.array(state["best"], dtype=np.uint8), state["best_score"])
        climber.stall = state["stall"]
        climber.set_random_state(state["rng"])
    while report.deals < task.payload["games"]:
        if climber.stall >= settings.stall:
            state["restarts"] += 1
            restart(first=False)
            continue
        played, totals, cycle_rows, _ = climber.climb(
            task.payload["games"] - report.deals, settings.stall, COOLING,
            settings.escape == "anneal", counts, hists, widths)
        report.deals += played
        report.total += int(totals[count_index])
        cycle_rows = np.asarray(cycle_rows)
        for row, found in zip(cycle_rows, results_of(spec, cycle_rows), strict=True):
            report.finds.append((compact(row, spec), found))
        if climber.best_score > state["record"]:   # the climber's best ever
            state["record"] = climber.best_score
            best = climber.best_row
            report.finds.append((compact(best, spec), results_of(spec, best[None, :])[0]))
            report.notes.append(f"climber {task.key + 1}: best {climber.best_score} "
                                f"{spec.objective}")
            state["improvements"] += 1
            if settings.reverse_every and state["improvements"] % settings.reverse_every == 0:
                _grow_backwards(spec, climber, state, report)
    report.outcomes = [int(c) for c in counts]
    report.state = {**state, "current": climber.current_row.tolist(), "score": climber.score,
                    "best": climber.best_row.tolist(), "best_score": climber.best_score,
                    "temperature": climber.temperature, "stall": climber.stall,
                    "rng": climber.random_state()}
    return report


def _keep_best(pool: list[list[Any]], row: list[int], score: int) -> None:
    """Add ``[score, row]`` to ``pool`` (best first, at most ``POOL_SIZE``, no row twice)."""
    if any(kept == row for _, kept in pool):
        return
    pool.append([score, row])
    pool.sort(key=lambda entry: -entry[0])  # stable: of equal scores, the older stays
    del pool[POOL_SIZE:]


def _grow_backwards(spec: SearchSpec, climber: SearchClimber, state: dict[str, Any],
                    report: Report) -> None:
    """Try to extend the climber's best deal backwards (a
    :class:`~dealsearch.game.PlaysBackwards`'s ``longer_starts``); continue
    from the longest result by the objective, if it is at least as long as the climber's
    best."""
    game = spec.plugin
    assert isinstance(game, PlaysBackwards)  # the spec refused the run otherwise
    longer = game.longer_starts(climber.best_row, spec.options)
    if not longer:
        return
    # The game finds deals longer in its first measure; the longest by the objective is the pick.
    row, result = max(longer, key=lambda item: score(item[1], spec))
    gained = score(result, spec)
    if gained < climber.best_score:  # more cards but fewer tricks: never restart below
        return
    climber.reset(row, gained, climber.temperature)
    state["record"] = max(state["record"], gained)
    report.finds.append((compact(row, spec), result))
    report.notes.append(f"climber {report.key + 1}: grown backwards to {gained} "
                        f"{spec.objective}")
