"""Hill climbing with restarts: mutate the deal, keep what plays longer.

Each step plays ``neighbours`` mutants of the current deal in one compiled batch and moves to
the best of them if it is at least as long (plateaus are crossed) or, with ``escape=anneal``,
with the simulated-annealing probability exp(delta / T). After ``stall`` steps without a new
best the climber restarts from a fresh random deal (or the ``--start`` deal). A climber's state
travels with its tasks, so any worker can continue it and a resumed run picks it up.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

from ..engine import play_batch
from ..notation import parse_deal
from .base import Report, Task, add_batch, compact, score
from .spec import SearchSpec

SLICE_GAMES = 20_000      # games per task: a fraction of a second
COOLING = 0.995           # temperature factor per step
CYCLE_SCORE = 10**9       # a game that never ends beats every finite one


def mutate(row: npt.NDArray[np.uint8], rng: np.random.Generator,
           sizes: tuple[int, ...]) -> npt.NDArray[np.uint8]:
    """A neighbour of ``row``: swap two cards of different classes, move a court card,
    swap cards between hands or rotate a hand (chosen at random)."""
    child = row.copy()
    n = len(child)
    kind = int(rng.integers(4))
    if kind == 0 or (kind == 2 and len(sizes) < 2):
        i, j = rng.integers(n, size=2)
        if child[i] == child[j]:  # equal classes: find a partner of another class
            others = np.flatnonzero(child != child[i])
            if len(others):
                j = rng.choice(others)
        child[i], child[j] = child[j], child[i]
    elif kind == 1:
        courts = np.flatnonzero(child)
        if len(courts):
            i = int(rng.choice(courts))
            card = child[i]
            child = np.insert(np.delete(child, i), int(rng.integers(n)), card)
    elif kind == 2:
        starts = np.concatenate(([0], np.cumsum(sizes)))
        a, b = rng.choice(len(sizes), size=2, replace=False)
        i = int(rng.integers(starts[a], starts[a + 1]))
        j = int(rng.integers(starts[b], starts[b + 1]))
        child[i], child[j] = child[j], child[i]
    else:
        starts = np.concatenate(([0], np.cumsum(sizes)))
        hand = int(rng.integers(len(sizes)))
        lo, hi = int(starts[hand]), int(starts[hand + 1])
        if hi - lo > 1:
            child[lo:hi] = np.roll(child[lo:hi], int(rng.integers(1, hi - lo)))
    return child


class ClimbSearch:
    """One climber per worker; each climber has at most one task in flight."""

    name = "climb"

    def __init__(self, spec: SearchSpec, checkpoint: dict[str, Any]) -> None:
        self.spec = spec
        saved = checkpoint.get("climbers", {})
        self.states: dict[int, dict[str, Any] | None] = {
            c: saved.get(str(c)) for c in range(spec.worker_count)}
        self.busy: set[int] = set()
        self.handed = int(checkpoint.get("games", 0))  # games handed out, done or in flight
        self.done_games = self.handed

    @property
    def total_deals(self) -> int | None:
        """Games the whole run will play, if bounded."""
        return self.spec.deals

    def next_task(self) -> Task | None:
        """A slice of work for an idle climber, or None."""
        idle = [c for c in self.states if c not in self.busy]
        if not idle:
            return None
        games = SLICE_GAMES
        if self.spec.deals is not None:
            games = min(games, self.spec.deals - self.handed)
            if games < 1:
                return None
        climber = idle[0]
        self.busy.add(climber)
        self.handed += games
        return Task(climber, {"state": self.states[climber], "games": games})

    def absorb(self, report: Report) -> None:
        """A climber's slice is done: keep its new state."""
        self.busy.discard(report.key)
        self.states[report.key] = report.state
        self.done_games += report.deals

    @property
    def finished(self) -> bool:
        """Whether the budget of games is spent."""
        return self.spec.deals is not None and self.done_games >= self.spec.deals

    def checkpoint(self) -> dict[str, Any]:
        """The climbers' states (a slice in flight is redone after a crash)."""
        return {"climbers": {str(c): s for c, s in self.states.items() if s is not None},
                "games": self.done_games}


def _start_row(spec: SearchSpec, rng: np.random.Generator) -> npt.NDArray[np.uint8]:
    if spec.start is not None:
        return np.array(parse_deal(spec.start, spec.game_rules, "any").cards, dtype=np.uint8)
    deck = spec.game_rules.deck
    return rng.permutation(np.repeat(np.arange(len(deck), dtype=np.uint8), deck))


def climb_slice(spec: SearchSpec, task: Task) -> Report:
    """Run one climber for a slice of games and report its finds and new state."""
    state = task.payload["state"]
    report = Report(task.key)
    slice_index = 0 if state is None else state["slice"] + 1
    rng = np.random.default_rng([spec.seed, task.key, slice_index])

    def evaluate(rows: npt.NDArray[np.uint8]) -> list[int]:
        batch = play_batch(rows, spec.game_rules, spec.players, spec.hand_sizes,
                           spec.max_cards, spec.max_tricks)
        add_batch(report, batch)
        scores = []
        for i in range(len(rows)):
            result = batch.result(i)
            if result.outcome == "cycle":
                report.finds.append((compact(rows[i], spec), result))
                scores.append(CYCLE_SCORE)
            else:
                scores.append(score(result, spec))
        return scores

    def restart() -> dict[str, Any]:
        row = _start_row(spec, rng)
        start_score = evaluate(row[None, :])[0]
        return {"current": row.tolist(), "score": start_score, "best": row.tolist(),
                "best_score": start_score, "temperature": spec.temperature, "stall": 0,
                "restarts": 0 if state is None else state["restarts"] + 1}

    if state is None:
        state = restart()
    state["slice"] = slice_index
    current = np.array(state["current"], dtype=np.uint8)
    while report.deals + spec.neighbours <= task.payload["games"]:
        mutants = np.stack([mutate(current, rng, spec.hand_sizes)
                            for _ in range(spec.neighbours)])
        scores = evaluate(mutants)
        pick = int(np.argmax(scores))
        delta = scores[pick] - state["score"]
        if delta >= 0 or (spec.escape == "anneal" and rng.random()
                          < math.exp(delta / max(state["temperature"], 1e-9))):
            current = mutants[pick]
            state["current"], state["score"] = current.tolist(), scores[pick]
        state["temperature"] *= COOLING
        if state["score"] > state["best_score"]:
            state["best"], state["best_score"], state["stall"] = current.tolist(), state["score"], 0
            if state["score"] < CYCLE_SCORE:
                report.notes.append(f"climber {task.key + 1}: best {state['score']} "
                                    f"{spec.objective}")
                result_rows = current[None, :]
                batch = play_batch(result_rows, spec.game_rules, spec.players, spec.hand_sizes,
                                   spec.max_cards, spec.max_tricks)
                report.finds.append((compact(current, spec), batch.result(0)))
        else:
            state["stall"] += 1
        if state["stall"] >= spec.stall or state["score"] >= CYCLE_SCORE:
            slice_number = state["slice"]
            state = restart()
            state["slice"] = slice_number
            current = np.array(state["current"], dtype=np.uint8)
    report.state = state
    return report
