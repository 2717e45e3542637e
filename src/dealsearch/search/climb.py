"""Hill climbing with restarts: mutate the deal, keep what plays longer.

The inner loop is compiled (:class:`dealsearch._climb.Climber`): one mutant per step (swap two
cards of different classes, move a court card, swap cards between hands, rotate a hand),
accepted if it plays at least as long (plateaus are crossed) or, with ``escape=anneal``, with
the simulated-annealing probability exp(delta / T), T halving every ``HALF_LIFE`` games. After
``stall`` games without a new best the climber restarts from a fresh random deal (or near the
``--start`` deal). A climber's state travels with its tasks, so any worker can continue it and
a resumed run picks it up.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._climb import Climber
from ..engine import play_batch
from ..notation import parse_deal
from ..result import OUTCOMES, Cycle, Result
from ..reverse import longer_starts
from .base import CARD_BIN, Report, Task, compact, row_deal, score
from .spec import SearchSpec

SLICE_GAMES = 50_000      # games per task: a fraction of a second
HALF_LIFE = 5_000         # annealing: the temperature halves every this many games
COOLING = 0.5 ** (1 / HALF_LIFE)
RESTART_MUTATIONS = 4     # how far from --start a restart begins
REVERSE_TRICKS = 12       # --reverse-every: walk back from this many states of the best game
REVERSE_STATES = 2_000    # ... each walk bounded to this many states


class ClimbSearch:
    """One climber per worker; each climber has at most one task in flight.

    With a deal budget each climber gets a fixed share of it up front and plays it in slices of
    ``SLICE_GAMES``: which games a climber plays never depends on which worker is idle first,
    so a seed (and a number of climbers) gives the same run, resumed or not.
    """

    name = "climb"

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

    def next_task(self) -> Task | None:
        """A slice of work for an idle climber with games left, or None."""
        for climber, state in self.states.items():
            if climber in self.busy:
                continue
            games = SLICE_GAMES
            if self.shares is not None:
                games = min(games, self.shares[climber] - self.handed[climber])
                if games < 1:
                    continue
            self.busy.add(climber)
            self.handed[climber] += games
            return Task(climber, {"state": state, "games": games})
        return None

    def absorb(self, report: Report) -> None:
        """A climber's slice is done: keep its new state."""
        self.busy.discard(report.key)
        self.states[report.key] = report.state
        self.done_games[report.key] += report.deals

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


def _result(values: tuple[int, ...] | list[int], outcome: int) -> Result:
    cards, tricks, *cycle = values
    name = OUTCOMES[outcome]
    return Result(name, None, cards, tricks, (), Cycle(*cycle) if name == "cycle" else None)


def climb_slice(spec: SearchSpec, task: Task) -> Report:
    """Run one climber for a slice of games and report its finds and new state."""
    state = task.payload["state"]
    report = Report(task.key)
    rules = spec.game_rules
    climber = Climber(spec.hand_sizes, rules.payments, spec.seed, task.key, spec.max_cards,
                      spec.max_tricks, spec.by_tricks)
    counts = np.zeros(3, dtype=np.int64)

    def restart(first: bool) -> None:
        if spec.start is not None:
            row = np.array(parse_deal(spec.start, rules, "any").cards, dtype=np.uint8)
        else:
            shuffler = np.random.default_rng([spec.seed, task.key, state["restarts"]])
            row = shuffler.permutation(np.repeat(np.arange(len(rules.deck), dtype=np.uint8),
                                                 rules.deck))
        climber.reset(row, 0, spec.temperature)
        if spec.start is not None and not first:
            climber.perturb(RESTART_MUTATIONS)
        outcome, *values = climber.play_current()
        counts[outcome] += 1
        report.deals += 1
        report.cards += values[0]
        if OUTCOMES[outcome] == "cycle":
            report.finds.append((compact(climber.current_row, spec), _result(values, outcome)))

    if state is None:
        state = {"restarts": 0, "record": 0, "improvements": 0}
        restart(first=True)
    else:
        climber.reset(np.array(state["current"], dtype=np.uint8), state["score"],
                      state["temperature"])
        if "best" in state:  # (a checkpoint from before it was kept restarts from current)
            climber.restore_best(np.array(state["best"], dtype=np.uint8), state["best_score"])
        climber.stall = state["stall"]
        climber.set_random_state(state["rng"])
    while report.deals < task.payload["games"]:
        if climber.stall >= spec.stall:
            state["restarts"] += 1
            restart(first=False)
            continue
        played, cards, cycle_rows, cycle_results = climber.climb(
            task.payload["games"] - report.deals, spec.stall, COOLING, spec.escape == "anneal",
            counts, report.histograms["cards"], report.histograms["tricks"], CARD_BIN)
        report.deals += played
        report.cards += cards
        for row, values in zip(cycle_rows, cycle_results.tolist(), strict=True):
            report.finds.append((compact(row, spec), _result(values[:6], values[6])))
        if climber.best_score > state["record"]:   # the climber's best ever
            state["record"] = climber.best_score
            best = climber.best_row
            batch = play_batch(best[None, :], rules, spec.players, spec.hand_sizes,
                               spec.max_cards, spec.max_tricks)
            report.finds.append((compact(best, spec), batch.result(0)))
            report.notes.append(f"climber {task.key + 1}: best {climber.best_score} "
                                f"{spec.objective}")
            state["improvements"] += 1
            if spec.reverse_every and state["improvements"] % spec.reverse_every == 0:
                _grow_backwards(spec, climber, state, report)
    report.outcomes = [int(c) for c in counts]
    report.state = {**state, "current": climber.current_row.tolist(), "score": climber.score,
                    "best": climber.best_row.tolist(), "best_score": climber.best_score,
                    "temperature": climber.temperature, "stall": climber.stall,
                    "rng": climber.random_state()}
    return report


def _grow_backwards(spec: SearchSpec, climber: Climber, state: dict[str, Any],
                    report: Report) -> None:
    """Try to extend the climber's best deal backwards; continue from the longest result by
    the objective, if it is at least as long as the climber's best."""
    deal = row_deal(climber.best_row, spec.hand_sizes)
    longer = longer_starts(deal, spec.game_rules, REVERSE_TRICKS, REVERSE_STATES)
    if not longer:
        return
    # longer_starts finds deals longer in cards; the longest by the objective is the pick.
    text, result = max(longer, key=lambda item: score(item[1], spec))
    gained = score(result, spec)
    if gained < climber.best_score:  # more cards but fewer tricks: never restart below
        return
    row = np.array(parse_deal(text, spec.game_rules, "any").cards, dtype=np.uint8)
    climber.reset(row, gained, climber.temperature)
    state["record"] = max(state["record"], gained)
    report.finds.append((text, result))
    report.notes.append(f"climber {report.key + 1}: grown backwards to {gained} "
                        f"{spec.objective}")
