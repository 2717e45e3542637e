"""Exhaustive search of a block against random search of the same deck, side by side.

Walking a block in rank order should cost little beside playing it: one unranking per task,
then the next distinct ordering of each deal (``_lanes.BlockPlayer``). Compare ``deals_per_s``
in ``extra_info`` of the two cases (issue target: exhaustive at least 0.9 times random), on the
40-card Italian deck (where N1k06's catalogue numbers deals) and the 52-card standard deck.
Worker tasks only (no log, no processes): what one core plays. ``exhaustive-emulate`` plays
the block on the GPU's rank kernels compiled for the CPU (``--device emulate``: a warp's 32
lanes in lockstep on one core), beside the CPU's lanes.
"""

from __future__ import annotations

from typing import Any

import pytest

from dealsearch.search.base import Task
from dealsearch.search.exhaustive import play_shard
from dealsearch.search.random_search import play_chunk
from dealsearch.search.spec import SearchSpec

DEALS = 1_000_000
ZANOTTO = 90016849133615   # a rank inside the Italian space (a never-ending deal)
# Where each block starts. Games are longer or shorter in places of the space: compare
# ``cards_per_s`` too (the standard deck's middle plays games as long as random deals').
RULES = {"italian": ZANOTTO - DEALS // 2, "standard": 326_767_067_443_439_122_500}


@pytest.mark.parametrize("rules", RULES)
@pytest.mark.parametrize("strategy", ["exhaustive", "exhaustive-emulate", "random"])
def test_block_rate_beside_random(benchmark: Any, rules: str, strategy: str) -> None:
    if strategy.startswith("exhaustive"):
        device = "emulate" if strategy.endswith("emulate") else "cpu"
        spec = SearchSpec("exhaustive", game="beggar", workers=1, game_options={"rules": rules},
                          settings={"ranks": [RULES[rules], RULES[rules] + DEALS]}, device=device)
        task = Task(0, {"start": RULES[rules], "deals": DEALS, "shard": 50_000})
        play = play_shard
    else:
        spec = SearchSpec("random", game="beggar", workers=1, seed=1, game_options={"rules": rules})
        task = Task(0, {"deals": DEALS})
        play = play_chunk
    report = benchmark.pedantic(play, args=(spec, task), rounds=3, iterations=1)
    assert report.deals == DEALS
    fastest = benchmark.stats.stats.min
    benchmark.extra_info.update(strategy=strategy, rules=rules, deals=DEALS,
                                deals_per_s=DEALS / fastest, cards_per_deal=report.total / DEALS,
                                cards_per_s=report.total / fastest)
