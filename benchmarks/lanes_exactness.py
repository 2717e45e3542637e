"""Check the lanes engine against the bit-plane engine on millions of random deals.

    python benchmarks/lanes_exactness.py [--deals 1000000] [--seed 1]

For 2, 3 and 4 players: ``--deals`` random standard deals through ``_lanes.play_rows`` and
``_engine.play_rows`` (every field: outcome, winner, cards, tricks, order out, cycle entry and
period), and the same deals dealt and played by both random players (counts, totals, finds).
For 2 players also Italian deals, small decks (which cycle often) and the agreed limit. Every
kernel this machine runs is checked (the scalar fallback is the engine itself, so it is only
timed against). Prints one line per check and exits 1 on any difference.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from dealsearch.games.beggar import _engine, _lanes
from dealsearch.games.beggar.notation import ITALIAN, STANDARD, Rules

CHUNK = 200_000


def differing(expected: tuple[np.ndarray, ...], got: tuple[np.ndarray, ...]) -> int:
    """How many deals differ in any field."""
    bad = np.zeros(len(expected[0]), dtype=bool)
    for a, b in zip(expected, got, strict=True):
        bad |= np.any(np.asarray(a != b).reshape(len(a), -1), axis=1)
    return int(bad.sum())


def check_rows(label: str, deck: tuple[int, ...], payments: tuple[int, ...], players: int,
               deals: int, seed: int, limits: tuple[int | None, int | None] = (None, None)
               ) -> int:
    sizes = Rules.deal_sizes(sum(deck), players)
    bad = cycles = limited = 0
    seconds = {"engine": 0.0, "lanes": 0.0}
    for stream, start in enumerate(range(0, deals, CHUNK)):
        rows = _engine.random_rows(deck, min(CHUNK, deals - start), seed, stream)
        t = time.perf_counter()
        expected = _engine.play_rows(rows, sizes, payments, *limits)
        seconds["engine"] += time.perf_counter() - t
        t = time.perf_counter()
        got = _lanes.play_rows(rows, sizes, payments, *limits)
        seconds["lanes"] += time.perf_counter() - t
        bad += differing(expected, got)
        cycles += int((expected[0] == 1).sum())
        limited += int((expected[0] == 2).sum())
    print(f"{label:52} {deals:>9,} deals  {cycles:>7,} cycles {limited:>9,} limited  "
          f"differ: {bad}  (engine {seconds['engine']:.2f}s, lanes {seconds['lanes']:.2f}s)",
          flush=True)
    return bad


def check_players(label: str, players: int, deals: int, seed: int) -> int:
    sizes = Rules.deal_sizes(52, players)
    args = (STANDARD.deck, sizes, STANDARD.payments, seed, 99)
    previous = _lanes.set_kernel("scalar")
    try:
        a = _lanes.RandomPlayer(*args).play(deals, 1 << 16)
    finally:
        _lanes.set_kernel(previous)
    b = _lanes.RandomPlayer(*args).play(deals, 1 << 16)
    same = a[0] == b[0] and all(np.array_equal(x, y) for x, y in zip(a[1:], b[1:], strict=True))
    print(f"{label:52} {deals:>9,} deals  random players agree: {same}", flush=True)
    return 0 if same else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    parser.add_argument("--deals", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    n, seed = args.deals, args.seed
    bad = 0
    for kernel in _lanes.kernels():
        if kernel == "scalar":
            continue
        _lanes.set_kernel(kernel, min_cards=2)  # small decks on lanes too: they cycle
        print(f"-- kernel {kernel}")
        for players in (2, 3, 4):
            bad += check_rows(f"standard, {players} players", STANDARD.deck, STANDARD.payments,
                              players, n, seed)
            bad += check_players(f"random player, {players} players", players, n, seed)
        bad += check_rows("italian, 2 players", ITALIAN.deck, ITALIAN.payments, 2, n, seed)
        bad += check_rows("standard, 2 players, limit 2000 cards / 250 tricks",
                          STANDARD.deck, STANDARD.payments, 2, n, seed, (2000, 250))
        # small decks that cycle often (a count per class: numerals, jacks, queens, ...)
        for deck in ((10, 2), (8, 6), (12, 2, 2), (24, 4, 4, 4, 4)):
            payments = STANDARD.payments[:len(deck)]
            bad += check_rows(f"deck {deck}, 2 players", deck, payments, 2, n, seed)
            bad += check_rows(f"deck {deck}, 2 players, limit 100 cards", deck, payments, 2,
                              n, seed, (100, None))
    print("all agree" if not bad else f"FAILED: {bad} deals differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
