"""Every public compiled entry point refuses wrong shapes, sizes, codes and ranges (ValueError).

The compiled loops index C arrays unchecked, so before each entry point checked its arguments
some of these calls wrote past an array or killed the interpreter (``predecessors((1, 2, 3),
payments)`` was a segmentation fault; so were a Spite and Malice kernel given code 200 and an
``Engine`` made by ``__new__`` alone), and others played a wrong game without a word (a Durak
row holding a card twice, a climber's random state of four zeros, which hung). The calls
therefore run in one child process, each reporting its exception on a line of its own: a crash
fails the case it happened in (and the ones after it) instead of killing pytest, and so does a
call that never returns.
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
from dealsearch import _permutations
from dealsearch.games.beggar import _engine, _lanes
from dealsearch.games.beggar._climb import Climber
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
from dealsearch.search import _generic
from dealsearch.games.beggar._kernel import BeggarKernel
from dealsearch.games.durak import _engine as durak
from dealsearch.games.spite import _engine as spite
BMN = BeggarKernel((26, 26), PAY)
ONE = dict(segments=(52,), unordered=(False,), fixed=(False,))
def sampler(**changes):
    return _generic.Sampler(**{"kernel": BMN, "deck": ROWS[0], **ONE, "seed": 1, "stream": 0,
                               **changes})
def generic(**changes):
    return _generic.Climber(**{"kernel": BMN, "deck": ROWS[0], **ONE, "seed": 1, "stream": 0,
                               **changes})
DURAK_ROW = np.arange(16, 52, dtype=np.uint8)      # the 36-card deck, each card once
TWICE = DURAK_ROW.copy()
TWICE[0] = TWICE[1]
DURAK = durak.make_kernel(players=2, deck=36)
PACK = np.repeat(np.arange(1, 14, dtype=np.uint8), 4)
SPITE_ROW = np.concatenate([PACK, PACK, np.full(4, 14, np.uint8)])
SPITE = spite.Engine(True, False, (0, 0), -1)
BARE_SPITE = spite.Engine.__new__(spite.Engine)
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
    ("_lanes.RandomPlayer(DECK, (26, 26), (0, 1, 2, 3), 1, 0)", "deck"),
    ("_lanes.RandomPlayer(DECK, (26, 25), PAY, 1, 0)", "do not add up"),
    ("_lanes.RandomPlayer(DECK, (10, 10, 10, 11, 11), PAY, 1, 0)", "sizes"),
    ("_lanes.RandomPlayer(DECK, (26, 26), PAY, -5, 0)", "seed"),
    ("_lanes.RandomPlayer(DECK, (26, 26), PAY, 1, 0, 0)", "max_cards"),
    ("_lanes.RandomPlayer(DECK, (26, 26), PAY, 1, 0, best=-1)", "best"),
    ("_lanes.RandomPlayer(DECK, (26, 26), PAY, 1, 0).play(-1)", "n must"),
    ("_lanes.RandomPlayer(DECK, (26, 26), PAY, 1, 0).play(5, 0)", "max_finds"),
    ("_lanes.RandomPlayer(DECK, (26, 26), PAY, 1, 0).play(5, 8, [HIST], [10])", "histograms"),
    ("_lanes.RandomPlayer(DECK, (26, 26), PAY, 1, 0).play(5, 8, [HIST, HIST[:0]], [10, 1])",
     "trick_hist"),
    ("_lanes.RandomPlayer(DECK, (26, 26), PAY, 1, 0).play(5, 8, [np.zeros(4), HIST], [10, 1])",
     "card_hist"),
    ("_lanes.RandomPlayer(DECK, (26, 26), PAY, 1, 0).play(5, 8, [HIST, HIST], [0, 1])",
     "card_bin"),
    ("_lanes.RandomPlayer.__new__(_lanes.RandomPlayer).play(5)", "never initialised"),
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
    ("Climber.__new__(Climber).climb(5, 10, 0.9, True, COUNTS)", "no deal yet"),
    ("ready().perturb(-1)", "mutations"),
    ("ready().climb(-1, 10, 0.9, True, COUNTS)", "games"),
    ("ready().climb(10, 0, 0.9, True, COUNTS)", "stall_limit"),
    ("ready().climb(10, 10, -0.5, True, COUNTS)", "cooling"),
    ("ready().climb(10, 10, 2.0, True, COUNTS)", "cooling"),
    ("ready().climb(10, 10, 0.9, True, COUNTS[:2])", "counts"),
    ("ready().climb(10, 10, 0.9, True, COUNTS, [HIST.astype(np.int32), HIST], [10, 1])",
     "card_hist"),
    ("ready().climb(10, 10, 0.9, True, COUNTS, [HIST, HIST[:0]], [10, 1])", "trick_hist"),
    ("ready().climb(10, 10, 0.9, True, COUNTS, [HIST, HIST], [0, 1])", "card_bin"),
    ("ready().climb(10, 10, 0.9, True, COUNTS, [HIST, HIST], [10, 2])", "histograms"),
    ("ready().climb(10, 10, 0.9, True, COUNTS, (), (), 0)", "max_cycles"),
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
    # Climber.restore_best: codes, and a climber with no deal
    ("ready().restore_best(np.full(52, 7, np.uint8), 5)", "card class 7"),
    ("Climber.__new__(Climber).restore_best(ROWS[0], 5)", "no deal yet"),
    # BeggarKernel: its constructor, and rows whose codes its payments do not know
    ("BeggarKernel((26, 26.5), PAY)", "sizes[1]"),
    ("BeggarKernel((40, 40), PAY)", "at most 64"),
    ("BeggarKernel((26, 26), (0, 0, 2, 3, 4))", "payments"),
    ("BeggarKernel((26, 26), (0, 1, 2, 3, 300))", "payments[4]"),
    ("BeggarKernel((26, 26), PAY, 10.5)", "max_cards"),
    ("BeggarKernel((26, 26), PAY, None, 0)", "max_tricks"),
    ("BMN.play(np.full(52, 7, np.uint8))", "card class 7"),
    ("BMN.play(np.full(52, 9, np.uint8))", "card class 9"),
    ("BMN.play(ROWS[0] + 0.5)", "whole numbers"),
    ("BMN.play(ROWS[0][:51])", "52 cards"),
    ("BMN.play(ROWS[0].astype(np.int64) - 1)", "0 to 255"),
    # the generic Sampler: its deck, seeds, segments, outcomes; play's histograms
    ("sampler(deck=np.full(52, 9, np.uint8))", "card class 9"),
    ("sampler(deck=ROWS[0][:50])", "52 cards"),
    ("sampler(seed=-1)", "seed"),
    ("sampler(stream=2 ** 64)", "stream"),
    ("sampler(segments=(26.5, 25.5), unordered=(0, 0), fixed=(0, 0))", "whole number"),
    ("sampler(segments=(26, 25), unordered=(0, 0), fixed=(0, 0))", "do not cut"),
    ("sampler(segments=(26, 26), unordered=(0,), fixed=(0, 0))", "one flag"),
    ("sampler(segments=(60, -8), unordered=(0, 0), fixed=(0, 0))", "segment 2"),
    ("sampler(objective=2)", "objective"),
    ("sampler(win=3)", "n_outcomes"),
    ("sampler(finished=(1,))", "finished"),
    ("sampler(objective=0.5)", "objective"),
    ("sampler(best=1.5)", "best"),
    ("sampler(n_outcomes=0)", "n_outcomes"),
    ("sampler().play(5.5)", "n must"),
    ("sampler().play(5, 8.5)", "max_finds"),
    ("sampler().play(-1)", "n must"),
    ("sampler().play(5, 0)", "max_finds"),
    ("sampler().play(5, 8, (HIST,), (10,))", "one histogram"),
    ("sampler().play(5, 8, (HIST.astype(np.int32), HIST), (10, 10))", "histogram 0"),
    ("sampler().play(5, 8, (HIST, HIST[::2]), (10, 10))", "histogram 1"),
    ("sampler().play(5, 8, (HIST, HIST), (10, 0))", "widths[1]"),
    ("sampler().play(5, 8, (HIST, HIST), (10, 2.5))", "widths[1]"),
    # the generic Climber: its constructor, reset, perturb, the random state, climb
    ("generic(weights=(1, 1, 1))", "weights"),
    ("generic(weights=(0.5, 0.5, 0, 0))", "weights[0]"),
    ("generic(weights=(2 ** 40, 1, 1, 1))", "weights[0]"),
    ("generic(weights=(0, 0, 0, 0))", "not all 0"),
    ("generic(cycle=3)", "n_outcomes"),
    ("generic(seed=-1)", "seed"),
    ("generic(deck=np.full(52, 9, np.uint8))", "card class 9"),
    ("generic().reset(np.full(52, 9, np.uint8), 0, 1.0)", "card class 9"),
    ("generic().reset(ROWS[0][:51], 0, 1.0)", "52 cards"),
    ("generic().reset(ROWS[0], 0, float('nan'))", "temperature"),
    ("generic().reset(ROWS[0], 0, -1.0)", "temperature"),
    ("generic().perturb(-1)", "mutations"),
    ("generic().perturb(1.5)", "mutations"),
    ("generic().reset(ROWS[0], 0.5, 1.0)", "score"),
    ("generic(objective=-1)", "objective"),
    ("generic().climb(10.5, 10, 0.9, True, COUNTS)", "games"),
    ("generic().climb(10, 10.5, 0.9, True, COUNTS)", "stall_limit"),
    ("generic().set_random_state([0, 0, 0, 0])", "not all 0"),
    ("generic().set_random_state([1, 2, 3])", "random state"),
    ("generic().set_random_state([1, 2, 3, -4])", "random state[3]"),
    ("generic().climb(-1, 10, 0.9, True, COUNTS)", "games"),
    ("generic().climb(10, 0, 0.9, True, COUNTS)", "stall_limit"),
    ("generic().climb(10, 10, 2.0, True, COUNTS)", "cooling"),
    ("generic().climb(10, 10, float('nan'), True, COUNTS)", "cooling"),
    ("generic().climb(10, 10, 0.9, True, COUNTS[:2])", "counts"),
    ("generic().climb(10, 10, 0.9, True, COUNTS, (HIST, HIST), (10, 10), 0)", "max_cycles"),
    # Durak: rows must be the deck, each card once; positions; the rules; its kernel
    ("durak.play_rows(TWICE[None], players=2, deck=36)", "once"),
    ("durak.play_rows(np.arange(36, dtype=np.uint8)[None], players=2, deck=36)", "16-51"),
    ("durak.play_rows(np.full((1, 36), 60, np.uint8), players=2, deck=36)", "below 52"),
    ("durak.play_rows(DURAK_ROW[None], players=2, deck=52)", "52-card row"),
    ("durak.play_rows(DURAK_ROW[None], players=7, deck=36)", "players"),
    ("durak.play_rows(DURAK_ROW[None], players=2, deck=36, first_limit=4)", "first_limit"),
    ("durak.play_rows(DURAK_ROW[None], players=2, deck=36, policies=[0, 2])", "policy"),
    ("durak.play_rows(DURAK_ROW[None], players=3, deck=36, pairs=True)", "pairs"),
    ("durak.play_rows(DURAK_ROW, players=2, deck=36)", "2-D uint8"),
    ("durak.play_rows([list(DURAK_ROW)], players=2, deck=36)", "2-D uint8"),
    ("durak.play_rows(DURAK_ROW[None], players=2.5, deck=36)", "players"),
    ("durak.play_rows(DURAK_ROW[None], players=2, deck=36, max_bouts=-2)", "max_bouts"),
    ("durak.make_kernel(players=2, deck=36, first_limit=5.5)", "first_limit"),
    ("durak.make_kernel(players=2, deck=36, policies=7)", "policies"),
    ("durak.play_position([[16, 17], [16]], 0, [], 0, False, players=2, deck=36)", "twice"),
    ("durak.play_position([[16], [18]], 0, [16], 0, False, players=2, deck=36)", "twice"),
    ("durak.play_position([[3], [16]], 0, [], 0, False, players=2, deck=36)", "36-card deck"),
    ("durak.play_position([[16.5], [17]], 0, [], 0, False, players=2, deck=36)",
     "whole number"),
    ("durak.play_position([[16], [17]], 4, [], 0, False, players=2, deck=36)", "trump"),
    ("durak.play_position([[16], [17]], 0, [], 2, False, players=2, deck=36)", "attacker"),
    ("durak.play_position([[16]], 0, [], 0, False, players=2, deck=36)", "1 hands"),
    ("durak.make_kernel(players=2, deck=40)", "deck"),
    ("DURAK.play(np.arange(36, dtype=np.uint8))", "16-51"),
    ("DURAK.play(TWICE)", "once"),
    ("_generic.Sampler(DURAK, TWICE, (36,), (False,), (False,), 1, 0)", "once"),
    # Spite and Malice: rows of the two packs, an Engine never initialised, the rules
    ("SPITE.play_rows(np.ones((1, 108), np.uint8))", "four times"),
    ("SPITE.play_rows(SPITE_ROW[None, ::-1])", "no joker"),
    ("SPITE.play_rows(SPITE_ROW[None, :107])", "108 cards"),
    ("SPITE.play_rows(np.full((1, 108), 15, np.uint8))", "codes 1-14"),
    ("SPITE.cycle_positions(np.ones(108, np.uint8))", "four times"),
    ("SPITE.kernel().play(np.ones(108, np.uint8))", "four times"),
    ("SPITE.kernel().play(np.full(108, 200, np.uint8))", "codes 1-14"),
    ("_generic.Sampler(SPITE.kernel(), np.full(108, 200, np.uint8), (108,), (0,), (0,), 1, 0)",
     "codes 1-14"),
    ("SPITE.play_position(np.array([3, 1, 1], np.uint8))", "turn"),
    ("SPITE.play_position(np.array([257, 1, 1]))", "0 to 255"),
    ("SPITE.cycle_positions(SPITE_ROW.astype(np.int64) + 256)", "0 to 255"),
    ("SPITE.play_rows(SPITE_ROW[None] + 0.5)", "whole numbers"),
    ("BARE_SPITE.play_rows(SPITE_ROW[None])", "never initialised"),
    ("BARE_SPITE.cycle_positions(SPITE_ROW)", "never initialised"),
    ("BARE_SPITE.play_position(np.array([3, 1, 1], np.uint8))", "never initialised"),
    ("BARE_SPITE.kernel()", "never initialised"),
    ("spite.Engine(True, False, (0, 2), -1)", "policies"),
    ("spite.Engine(True, False, (0,), -1)", "policies"),
    ("spite.Engine(True, False, (0, 0), 0)", "max_turns"),
    ("spite.Engine(True, False, (0, 0), 5.5)", "max_turns"),
    ("spite.Engine(True, False, 0, -1)", "policies"),
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

    from dealsearch import _permutations
    from dealsearch.games.beggar import _engine, _lanes
    from dealsearch.games.beggar._climb import Climber

    pay, deck = (0, 1, 2, 3, 4), (36, 4, 4, 4, 4)
    rows = _engine.random_rows(deck, 4, 1)
    assert len(_engine.play_rows(rows, (26, 26), pay, 10_000, None)[0]) == 4
    assert _lanes.RandomPlayer(deck, (18, 17, 17), pay, 1, 0).play(4)[0] == 4
    climber = Climber((26, 26), pay, 1, 0)
    climber.reset(rows[0], 0, 1.0)
    played = climber.climb(5, 10, 0.9, True, np.zeros(3, np.int64),
                           [np.zeros(4, np.int64), np.zeros(4, np.int64)], [10, 1])[0]
    assert played == 5
    assert len(_permutations.permutation_block(np.array([0, 0, 1], np.uint8), 5)) == 3
    # hand 2 has just taken a pile of its jack and hand 1's numeral: both can be undone
    state = (0, 0, 0, 25, 1 << 25, 0, 0, 27, 1)
    assert _engine.predecessors(state, pay) != []


def test_good_rows_still_play_through_the_game_kernels() -> None:
    """The row checks of the game kernels and the generic search accept every real deal."""
    import numpy as np

    from dealsearch.games.beggar._kernel import BeggarKernel
    from dealsearch.games.durak import _engine as durak
    from dealsearch.games.spite import _engine as spite
    from dealsearch.search._generic import Climber, Sampler

    rng = np.random.default_rng(7)
    pack = np.repeat(np.arange(1, 14, dtype=np.uint8), 4)
    spite_row = np.concatenate([rng.permutation(pack),
                                rng.permutation(np.append(pack, np.full(4, 14, np.uint8)))])
    durak_row = rng.permutation(np.arange(16, 52, dtype=np.uint8))
    bmn_row = rng.permutation(np.repeat(np.arange(5, dtype=np.uint8), [36, 4, 4, 4, 4]))
    assert spite.Engine(True, False, (0, 0), -1).kernel().play(spite_row)[1][0] >= 1
    assert durak.make_kernel(players=2, deck=36).play(durak_row)[1][1] >= 1
    assert len(durak.play_rows(durak_row[None], players=2, deck=36)[0]) == 1
    kernel = BeggarKernel((26, 26), (0, 1, 2, 3, 4))
    assert kernel.play(bmn_row)[1][0] >= 1
    assert Sampler(kernel, bmn_row, (26, 26), (False, False), (False, False), 1, 0
                   ).play(3)[0] == 3
    climber = Climber(kernel, bmn_row, (52,), (False,), (False,), 1, 0)
    climber.set_random_state([1, 2, 3, 2 ** 64 - 1])
    climber.reset(bmn_row, 0, 0.0)
    assert climber.climb(3, 10, 1.0, False, np.zeros(3, np.int64))[0] == 3
