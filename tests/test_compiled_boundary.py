"""Every public compiled entry point refuses wrong shapes, sizes, codes and ranges (ValueError).

The compiled loops index C arrays unchecked, so before each entry point checked its arguments
some of these calls wrote past an array or killed the interpreter (``predecessors((1, 2, 3),
payments)`` was a segmentation fault). The calls therefore run in one child process, each
reporting its exception on a line of its own: a crash fails the case it happened in (and the
ones after it) instead of killing pytest, and so does a call that never returns.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

SETUP = """
import json, sys
import numpy as np
from dealsearch import _engine, _permutations
from dealsearch._climb import Climber
from dealsearch._kernel import Kernel
PAY = (0, 1, 2, 3, 4)
DECK = (36, 4, 4, 4, 4)
ROWS = _engine.random_rows(DECK, 3, 1)
WIDE = _engine.random_rows((72, 8, 8, 8, 8), 2, 1)
def climber():
    return Climber((26, 26), PAY, 1, 0)
def ready():
    c = climber()
    c.reset(ROWS[0], 0, 1.0)
    return c
HIST = np.zeros(10, dtype=np.int64)
COUNTS = np.zeros(3, dtype=np.int64)
"""

# (call, a word the message must contain)
CASES: list[tuple[str, str]] = [
    # play_rows: shapes, dtypes, hand sizes, codes, payments, limits
    ("_engine.play_rows(np.zeros(52, np.uint8), (26, 26), PAY)", "2-D uint8"),
    ("_engine.play_rows(np.zeros((1, 52), np.int64), (26, 26), PAY)", "2-D uint8"),
    ("_engine.play_rows([[0] * 52], (26, 26), PAY)", "2-D uint8"),
    ("_engine.play_rows(ROWS, (10, 10, 10, 11, 11), PAY)", "sizes"),
    ("_engine.play_rows(ROWS, (26, 25), PAY)", "do not add up"),
    ("_engine.play_rows(ROWS, (52, 0), PAY)", "sizes[1]"),
    ("_engine.play_rows(ROWS, (60, -8), PAY)", "sizes[1]"),
    ("_engine.play_rows(ROWS, (52,), PAY)", "sizes"),
    ("_engine.play_rows(ROWS, (26, 26.0), PAY)", "whole number"),
    ("_engine.play_rows(ROWS, (26, 26), (0, 1, 2, 3))", "card class 4"),
    ("_engine.play_rows(np.full((1, 52), 9, np.uint8), (26, 26), PAY)", "card class 9"),
    ("_engine.play_rows(np.full((1, 104), 7, np.uint8), (52, 52), PAY)", "card class 7"),
    ("_engine.play_rows(ROWS, (26, 26), (0, 1, 2, 3, 4, 5, 6, 7, 8))", "payments"),
    ("_engine.play_rows(ROWS, (26, 26), (0,))", "payments"),
    ("_engine.play_rows(ROWS, (26, 26), (1, 1, 2, 3, 4))", "payments"),
    ("_engine.play_rows(ROWS, (26, 26), (0, 0, 2, 3, 4))", "payments"),
    ("_engine.play_rows(ROWS, (26, 26), (0, 1, 2, 3, 300))", "payments[4]"),
    ("_engine.play_rows(ROWS, (26, 26), PAY, 0)", "max_cards"),
    ("_engine.play_rows(ROWS, (26, 26), PAY, None, -1)", "max_tricks"),
    ("_engine.play_rows(ROWS, (26, 26), PAY, '10')", "max_cards"),
    ("_engine.play_rows(np.zeros((1, 1), np.uint8), (1,), PAY)", "2 to"),
    ("_engine.play_rows(np.zeros((1, 65536), np.uint8), (32768, 32768), PAY)", "65535"),
    # random_rows
    ("_engine.random_rows((36, -4, 4, 4, 4), 1, 0)", "deck[1]"),
    ("_engine.random_rows((1,) * 9, 1, 0)", "deck"),
    ("_engine.random_rows((1, 0), 1, 0)", "deck must hold"),
    ("_engine.random_rows(DECK, -1, 0)", "n must"),
    ("_engine.random_rows(DECK, 1, -5)", "seed"),
    ("_engine.random_rows(DECK, 1, 10 ** 23)", "seed"),
    ("_engine.random_rows(DECK, 1, 0, -1)", "stream"),
    # RandomPlayer: the constructor and play
    ("_engine.RandomPlayer(DECK, (26, 26), (0, 1, 2, 3), 1, 0)", "deck"),
    ("_engine.RandomPlayer(DECK, (26, 25), PAY, 1, 0)", "do not add up"),
    ("_engine.RandomPlayer(DECK, (10, 10, 10, 11, 11), PAY, 1, 0)", "sizes"),
    ("_engine.RandomPlayer(DECK, (26, 26), PAY, -5, 0)", "seed"),
    ("_engine.RandomPlayer(DECK, (26, 26), PAY, 1, 0, 0)", "max_cards"),
    ("_engine.RandomPlayer(DECK, (26, 26), PAY, 1, 0, best=-1)", "best"),
    ("_engine.RandomPlayer(DECK, (26, 26), PAY, 1, 0).play(-1)", "n must"),
    ("_engine.RandomPlayer(DECK, (26, 26), PAY, 1, 0).play(5, 0)", "max_finds"),
    ("_engine.RandomPlayer(DECK, (26, 26), PAY, 1, 0).play(5, 8, HIST)", "both"),
    ("_engine.RandomPlayer(DECK, (26, 26), PAY, 1, 0).play(5, 8, HIST, HIST[:0])", "trick_hist"),
    ("_engine.RandomPlayer(DECK, (26, 26), PAY, 1, 0).play(5, 8, np.zeros(4), HIST)",
     "card_hist"),
    ("_engine.RandomPlayer(DECK, (26, 26), PAY, 1, 0).play(5, 8, HIST, HIST, 0)", "card_bin"),
    ("_engine.RandomPlayer.__new__(_engine.RandomPlayer).play(5)", "never initialised"),
    # predecessors: the state tuple and the payments
    ("_engine.predecessors((1, 2, 3), PAY)", "9 numbers"),
    ("_engine.predecessors([0, 0, 0, 2, 0, 0, 0, 2, 0], PAY)", "9 numbers"),
    ("_engine.predecessors((0, 0, 0, 2, 0, 0, 0, 2, 2), PAY)", "seat to move"),
    ("_engine.predecessors((0, 0, 0, 65, 0, 0, 0, 2, 0), PAY)", "length"),
    ("_engine.predecessors((0, 0, 0, -1, 0, 0, 0, 2, 0), PAY)", "length"),
    ("_engine.predecessors((8, 0, 0, 2, 0, 0, 0, 2, 0), PAY)", "past its length"),
    ("_engine.predecessors((0, 0, 0, 40, 0, 0, 0, 40, 0), PAY)", "at most 64"),
    ("_engine.predecessors((0, 0, 0, 2, 1, 1, 1, 2, 0), PAY)", "card class 7"),
    ("_engine.predecessors((0, 0, 0, 2, 0, 0, 0, 2, 0), (0, 1, 2, 3, 4, 5, 6, 7, 8))",
     "payments"),
    ("_engine.predecessors((0, 0, 0, 2, 0, 0, 0, 2, 0), [0, 0])", "payments"),
    # Climber: the constructor, reset and what needs a deal first, climb's arrays and numbers
    ("Climber((10, 10, 10, 11, 11), PAY, 1, 0)", "sizes"),
    ("Climber((0, 52), PAY, 1, 0)", "sizes[0]"),
    ("Climber((26, 26), (0, 0), 1, 0)", "payments"),
    ("Climber((26, 26), PAY, -1, 0)", "seed"),
    ("Climber((26, 26), PAY, 1, 0, -3)", "max_cards"),
    ("climber().reset(ROWS[0][:51], 0, 1.0)", "52 cards"),
    ("climber().reset(ROWS[0].astype(np.int64), 0, 1.0)", "uint8"),
    ("climber().reset(ROWS[:2], 0, 1.0)", "1-D"),
    ("climber().reset(np.full(52, 7, np.uint8), 0, 1.0)", "card class 7"),
    ("climber().reset(ROWS[0], -1, 1.0)", "score"),
    ("climber().reset(ROWS[0], 0, -1.0)", "temperature"),
    ("climber().reset(ROWS[0], 0, float('nan'))", "temperature"),
    ("climber().play_current()", "no deal yet"),
    ("climber().perturb(1)", "no deal yet"),
    ("climber().current_row", "no deal yet"),
    ("Climber.__new__(Climber).climb(5, 10, 0.9, True, COUNTS, HIST, HIST, 10)", "no deal yet"),
    ("ready().perturb(-1)", "mutations"),
    ("ready().climb(-1, 10, 0.9, True, COUNTS, HIST, HIST, 10)", "games"),
    ("ready().climb(10, 0, 0.9, True, COUNTS, HIST, HIST, 10)", "stall_limit"),
    ("ready().climb(10, 10, -0.5, True, COUNTS, HIST, HIST, 10)", "cooling"),
    ("ready().climb(10, 10, 2.0, True, COUNTS, HIST, HIST, 10)", "cooling"),
    ("ready().climb(10, 10, 0.9, True, COUNTS[:2], HIST, HIST, 10)", "counts"),
    ("ready().climb(10, 10, 0.9, True, COUNTS, HIST.astype(np.int32), HIST, 10)", "card_hist"),
    ("ready().climb(10, 10, 0.9, True, COUNTS, HIST, HIST[:0], 10)", "trick_hist"),
    ("ready().climb(10, 10, 0.9, True, COUNTS, HIST, HIST, 0)", "card_bin"),
    ("ready().climb(10, 10, 0.9, True, COUNTS, HIST, HIST, 10, 0)", "max_cycles"),
    ("ready().set_random_state([0, 0, 0, 0])", "random state"),
    ("ready().set_random_state([1, 2, 3])", "random state"),
    ("ready().set_random_state([1, 2, 3, -4])", "random state"),
    # permutation_block
    ("_permutations.permutation_block(np.zeros(0, np.uint8), 3)", "non-empty"),
    ("_permutations.permutation_block(np.zeros((2, 2), np.uint8), 3)", "1-D"),
    ("_permutations.permutation_block(np.zeros(4, np.int64), 3)", "uint8"),
    ("_permutations.permutation_block(np.zeros(4, np.uint8), -1)", "n must"),
    # Kernel: one not built by a game, rows of the wrong shape
    ("Kernel().play([0, 1])", "not built by a game"),
]

CHILD = SETUP + """
for line in sys.stdin:
    call = json.loads(line)
    try:
        eval(call)
    except Exception as error:
        print(json.dumps([type(error).__name__, str(error)]), flush=True)
    else:
        print(json.dumps(["no exception", ""]), flush=True)
"""


@pytest.fixture(scope="module")
def outcomes() -> dict[str, Any]:
    """Each call's (exception type, message), run in one child; calls from a crash on are
    missing, and the crash is described under the key ``"crash"``."""
    calls = "".join(json.dumps(call) + "\n" for call, _ in CASES)
    try:
        done = subprocess.run([sys.executable, "-c", CHILD], input=calls, capture_output=True,
                              text=True, timeout=120, check=False)
        output, crash = done.stdout, (
            f"the child died with status {done.returncode}: {done.stderr[-2000:]}"
            if done.returncode else None)
    except subprocess.TimeoutExpired as stopped:   # a call that never returns
        partial = stopped.stdout or ""
        output = partial if isinstance(partial, str) else partial.decode()
        crash = "the child hung (killed after 120 s)"
    # fewer lines than calls if the child crashed or hung
    found: dict[str, Any] = {call: json.loads(line)
                             for (call, _), line in zip(CASES, output.splitlines(), strict=False)}
    if crash:
        found["crash"] = crash
    return found


@pytest.mark.parametrize(("call", "word"), CASES, ids=[call for call, _ in CASES])
def test_wrong_arguments_raise_value_error(outcomes: dict[str, Any], call: str,
                                           word: str) -> None:
    assert call in outcomes, outcomes.get("crash", "the child stopped before this call")
    kind, message = outcomes[call]
    assert kind == "ValueError", f"{call} gave {kind}: {message}"
    assert word in message, f"{call}: {message!r} does not mention {word!r}"
    assert "\n" not in message


def test_good_arguments_still_play() -> None:
    """The checks refuse only what is wrong: the same entry points with good arguments."""
    import numpy as np

    from dealsearch import _engine, _permutations
    from dealsearch._climb import Climber

    pay, deck = (0, 1, 2, 3, 4), (36, 4, 4, 4, 4)
    rows = _engine.random_rows(deck, 4, 1)
    assert len(_engine.play_rows(rows, (26, 26), pay, 10_000, None)[0]) == 4
    assert _engine.RandomPlayer(deck, (18, 17, 17), pay, 1, 0).play(4)[0] == 4
    climber = Climber((26, 26), pay, 1, 0)
    climber.reset(rows[0], 0, 1.0)
    played = climber.climb(5, 10, 0.9, True, np.zeros(3, np.int64), np.zeros(4, np.int64),
                           np.zeros(4, np.int64), 10)[0]
    assert played == 5
    assert len(_permutations.permutation_block(np.array([0, 0, 1], np.uint8), 5)) == 3
    # hand 2 has just taken a pile of its jack and hand 1's numeral: both can be undone
    state = (0, 0, 0, 25, 1 << 25, 0, 0, 27, 1)
    assert _engine.predecessors(state, pay) != []
