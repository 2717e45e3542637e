"""Hill climbing with restarts: mutate the deal, keep what plays longer.

Each step plays ``neighbours`` mutants of the current deal in one compiled batch and moves to
the best of them if it is at least as long (plateaus are crossed) or, with ``escape=anneal``,
with the simulated-annealing probability exp(delta / T). After ``stall`` steps without a new
best the climber restarts from a fresh random deal (or the ``--start`` deal). A climber's state
travels with its tasks, so any worker can continue it and a resumed run picks it up.
"""

from __future__ import annotations

import math
import random
from typing import Any

import numpy as np
import numpy.typing as npt

from ..engine import play_batch
from ..notation import parse_deal
from ..reverse import longer_starts
from .base import Report, Task, add_batch, compact, row_deal
from .spec import SearchSpec

SLICE_GAMES = 5_000       # games per task: a fraction of a second
COOLING = 0.995           # temperature factor per step
CYCLE_SCORE = 10**9       # a game that never ends beats every finite one
RESTART_MUTATIONS = 4     # how far from --start a restart begins
REVERSE_TRICKS = 12       # --reverse-every: walk back from this many states of the best game
REVERSE_STATES = 2_000    # ... each walk bounded to this many states


def hand_starts(sizes: tuple[int, ...]) -> list[int]:
    """Where each hand begins in a row, plus the row's length."""
    starts = [0]
    for size in sizes:
        starts.append(starts[-1] + size)
    return starts


def mutate(row: list[int], rnd: random.Random, starts: list[int]) -> list[int]:
    """A neighbour of ``row``: swap two cards of different classes, move a court card,
    swap cards between hands or rotate a hand (chosen at random).

    Plain lists and ``random.Random``: for 52 cards they are several times faster than numpy.
    """
    child = row.copy()
    n = len(child)
    hands = len(starts) - 1
    kind = rnd.randrange(4)
    if kind == 0:
        i = rnd.randrange(n)
        others = [j for j in range(n) if child[j] != child[i]]
        if others:
            j = rnd.choice(others)
            child[i], child[j] = child[j], child[i]
    elif kind == 1:
        courts = [i for i in range(n) if child[i]]
        if courts:
            card = child.pop(rnd.choice(courts))
            child.insert(rnd.randrange(n), card)
    elif kind == 2:
        a, b = rnd.sample(range(hands), 2)
        i = rnd.randrange(starts[a], starts[a + 1])
        j = rnd.randrange(starts[b], starts[b + 1])
        child[i], child[j] = child[j], child[i]
    else:
        hand = rnd.randrange(hands)
        lo, hi = starts[hand], starts[hand + 1]
        if hi - lo > 1:
            k = rnd.randrange(1, hi - lo)
            child[lo:hi] = child[lo + k:hi] + child[lo:lo + k]
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


def grow_backwards(spec: SearchSpec, current: list[int], state: dict[str, Any],
                   report: Report) -> list[int]:
    """Try to extend the climber's deal backwards; continue from the longest longer deal."""
    deal = row_deal(np.array(current, dtype=np.uint8), spec.hand_sizes)
    longer = longer_starts(deal, spec.game_rules, REVERSE_TRICKS, REVERSE_STATES)
    if not longer:
        return current
    text, result = longer[0]
    grown = list(parse_deal(text, spec.game_rules, "any").cards)
    report.finds.append((text, result))
    report.notes.append(f"climber {report.key + 1}: grown backwards to {result.cards} cards")
    gained = result.tricks if spec.by_tricks else result.cards
    state.update(current=grown, score=gained, best=grown, best_score=gained,
                 record=max(state["record"], gained), stall=0)
    return grown


def _start_row(spec: SearchSpec, rnd: random.Random, restart: bool) -> list[int]:
    """The --start deal (a few mutations away from it on a restart), or a random deal."""
    if spec.start is not None:
        row = list(parse_deal(spec.start, spec.game_rules, "any").cards)
        for _ in range(RESTART_MUTATIONS if restart else 0):
            row = mutate(row, rnd, hand_starts(spec.hand_sizes))
        return row
    row = [cls for cls, count in enumerate(spec.game_rules.deck) for _ in range(count)]
    rnd.shuffle(row)
    return row


def climb_slice(spec: SearchSpec, task: Task) -> Report:
    """Run one climber for a slice of games and report its finds and new state."""
    state = task.payload["state"]
    report = Report(task.key)
    slice_index = 0 if state is None else state["slice"] + 1
    rnd = random.Random(f"{spec.seed}/{task.key}/{slice_index}")
    starts = hand_starts(spec.hand_sizes)

    def evaluate(rows: npt.NDArray[np.uint8]) -> list[int]:
        batch = play_batch(rows, spec.game_rules, spec.players, spec.hand_sizes,
                           spec.max_cards, spec.max_tricks)
        add_batch(report, batch)
        scores = batch.tricks if spec.by_tricks else batch.cards
        cycles = np.flatnonzero(batch.outcome == 1)
        for i in cycles:
            report.finds.append((compact(rows[i], spec), batch.result(int(i))))
        scores = scores.tolist()
        for i in cycles:
            scores[i] = CYCLE_SCORE
        return scores

    def restart() -> dict[str, Any]:
        row = _start_row(spec, rnd, restart=state is not None)
        start_score = evaluate(np.array([row], dtype=np.uint8))[0]
        return {"current": row, "score": start_score, "best": row,
                "best_score": start_score, "temperature": spec.temperature, "stall": 0,
                "restarts": 0 if state is None else state["restarts"] + 1,
                "record": start_score if state is None else state["record"]}

    if state is None:
        state = restart()
    state["slice"] = slice_index
    current = state["current"]
    while report.deals < task.payload["games"]:
        if state["stall"] >= spec.stall or state["score"] >= CYCLE_SCORE:
            state = {**restart(), "slice": slice_index}
            current = state["current"]
            continue
        tries = min(spec.neighbours, task.payload["games"] - report.deals)
        mutants = [mutate(current, rnd, starts) for _ in range(tries)]
        scores = evaluate(np.array(mutants, dtype=np.uint8))
        pick = int(np.argmax(scores))
        delta = scores[pick] - state["score"]
        if delta >= 0 or (spec.escape == "anneal" and rnd.random()
                          < math.exp(delta / max(state["temperature"], 1e-9))):
            current = mutants[pick]
            state["current"], state["score"] = current, scores[pick]
        state["temperature"] *= COOLING
        if state["score"] > state["best_score"]:
            state["best"], state["best_score"], state["stall"] = current, state["score"], 0
            if state["record"] < state["score"] < CYCLE_SCORE:  # the climber's best ever
                state["record"] = state["score"]
                report.notes.append(f"climber {task.key + 1}: best {state['score']} "
                                    f"{spec.objective}")
                row = np.array([current], dtype=np.uint8)
                batch = play_batch(row, spec.game_rules, spec.players,
                                   spec.hand_sizes, spec.max_cards, spec.max_tricks)
                report.finds.append((compact(row[0], spec), batch.result(0)))
                state["improvements"] = state.get("improvements", 0) + 1
                if spec.reverse_every and state["improvements"] % spec.reverse_every == 0:
                    current = grow_backwards(spec, current, state, report)
        else:
            state["stall"] += 1
    report.state = state
    return report
