"""The search harness against the bare engine: random search on 1 and 2 worker processes.

Compare ``deals_per_s`` in ``extra_info`` with test_random_player_generation_included (the bare
engine, dealing included): one worker should be within 10% of it, two about twice as fast.
"""

from __future__ import annotations

from typing import Any

import pytest

from dealsearch.log import RecordLog
from dealsearch.search.runner import Runner
from dealsearch.search.spec import SearchSpec

DEALS = 2_000_000


@pytest.mark.parametrize("workers", [1, 2])
def test_random_search_harness(benchmark: Any, tmp_path: Any, workers: int) -> None:
    def search() -> Any:
        spec = SearchSpec("random", game="beggar", deals=DEALS, seed=1, workers=workers)
        log = RecordLog(tmp_path / f"{workers}-{search.runs}.sqlite")
        search.runs += 1
        summary = Runner(spec, log, progress=False).run()
        log.close()
        return summary

    search.runs = 0  # type: ignore[attr-defined]
    summary = benchmark.pedantic(search, rounds=3, iterations=1)
    assert summary.deals == DEALS
    benchmark.extra_info.update(
        deals=DEALS, workers=workers, deals_per_s=DEALS / benchmark.stats.stats.min)
