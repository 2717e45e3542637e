"""The generic compiled loops on the BMN kernel against BMN's specialised ones, interleaved.

Usage: ``python benchmarks/compare_generic.py [ROUNDS]``. Each round times the four loops once
on the same work (random: 50,000 deals of stream (1, 0); climbing: 20,000 games from the same
start); the ratios are of the minima over rounds (generic / specialised time).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

import numpy as np

from dealsearch.game import get_game
from dealsearch.games.beggar._climb import Climber as BmnClimber
from dealsearch.search._generic import Climber, Sampler
from dealsearch.search.base import new_histograms
from dealsearch.search.climb import COOLING

BEGGAR = get_game("beggar")
OPTIONS = BEGGAR.options()
LAYOUT = BEGGAR.layout(OPTIONS)
DEALS, GAMES = 50_000, 20_000


def hists() -> tuple[list[np.ndarray], list[int]]:
    made = new_histograms(BEGGAR)
    return [made["cards"], made["tricks"]], [10, 1]


def generic_sampler() -> int:
    return int(Sampler(BEGGAR.kernel(OPTIONS), LAYOUT.deck, LAYOUT.segments, LAYOUT.unordered,
                       LAYOUT.fixed, 1, 0).play(DEALS, 256, *hists())[2][0])


def specialised_sampler() -> int:
    return int(BEGGAR.random_player(OPTIONS, 1, 0, "cards").play(DEALS, 256, *hists())[2][0])


def _climb(climber: object, step: Callable[[int, np.ndarray], tuple[int, int]]) -> int:
    climber.reset(np.random.default_rng(1).permutation(LAYOUT.deck), 0, 40.0)  # type: ignore
    climber.play_current()  # type: ignore[attr-defined]
    counts = np.zeros(3, dtype=np.int64)
    played = cards = 0
    while played < GAMES:
        games, more = step(GAMES - played, counts)
        played += games
        cards += more
    return cards


def generic_climber() -> int:
    climber = Climber(BEGGAR.kernel(OPTIONS), LAYOUT.deck, LAYOUT.segments, LAYOUT.unordered,
                      LAYOUT.fixed, 1, 0)

    def step(n: int, counts: np.ndarray) -> tuple[int, int]:
        played, totals, *_ = climber.climb(n, 10**9, COOLING, True, counts, *hists())
        return played, int(totals[0])

    return _climb(climber, step)


def specialised_climber() -> int:
    climber = BmnClimber((26, 26), OPTIONS.game_rules.payments, 1, 0)

    def step(n: int, counts: np.ndarray) -> tuple[int, int]:
        played, totals, *_ = climber.climb(n, 10**9, COOLING, True, counts, *hists())
        return played, int(totals[0])

    return _climb(climber, step)


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    loops = {"generic sampler": generic_sampler, "specialised sampler": specialised_sampler,
             "generic climber": generic_climber, "specialised climber": specialised_climber}
    best = dict.fromkeys(loops, float("inf"))   # seconds per card
    for _ in range(rounds):
        for name, loop in loops.items():
            start = time.process_time()  # CPU time: the machine is shared
            cards = loop()
            best[name] = min(best[name], (time.process_time() - start) / cards)
    for kind in ("sampler", "climber"):
        generic, special = best[f"generic {kind}"], best[f"specialised {kind}"]
        print(f"{kind}: generic {generic * 1e9:.2f} ns/card, specialised {special * 1e9:.2f} "
              f"ns/card, generic/specialised {generic / special:.2f}")


if __name__ == "__main__":
    main()
