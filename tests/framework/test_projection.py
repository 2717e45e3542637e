"""The tail model: fit, chi-square check (accepts exponentials, rejects humps), projection."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dealsearch.cli import main
from dealsearch.log import RecordLog
from dealsearch.projection import (
    ALPHA,
    EULER_GAMMA,
    MAX_TAIL,
    TailFit,
    chi2_sf,
    expected_longest,
    fit_tail,
    longest_quantile,
    project,
    run_projection,
    runs_projection,
)


def binned(lengths: np.ndarray, width: int = 10) -> dict[int, int]:
    counts = np.bincount((lengths // width).astype(np.int64))
    return {b: int(n) for b, n in enumerate(counts) if n}


def geometric(games: float, scale: float, width: int = 10, bins: int = 600) -> dict[int, int]:
    """The exact expected counts of exponential lengths, rounded: surely exponential."""
    q = math.exp(-width / scale)
    return {b: round(games * q**b * (1 - q)) for b in range(bins)}


def test_chi_square_tail_probabilities_match_the_tables():
    # Critical values from any chi-square table (upper 5 %, 1 %, 0.1 %).
    for x, dof, p in ((3.841, 1, 0.05), (5.991, 2, 0.05), (21.666, 9, 0.01),
                      (29.588, 10, 0.001), (124.342, 100, 0.05), (0.0, 3, 1.0)):
        assert chi2_sf(x, dof) == pytest.approx(p, abs=2e-4)


def test_exact_exponential_counts_are_accepted_with_their_scale():
    fit = fit_tail(10, geometric(10**7, 205.0), measure="cards")
    assert fit.accepted and fit.reason == ""
    assert fit.p_value > 0.5
    assert fit.scale == pytest.approx(205.0, rel=0.02)
    assert MAX_TAIL <= fit.tail_games < 1.2 * MAX_TAIL   # the far tail, not the top 1 %


def test_a_seeded_exponential_sample_is_accepted():
    lengths = np.random.default_rng(0).exponential(205.0, 500_000) + 30
    fit = fit_tail(10, binned(lengths), measure="cards")
    assert fit.accepted, fit.reason
    assert fit.p_value >= ALPHA
    assert fit.scale == pytest.approx(205.0, rel=0.06)


def test_a_two_humped_mixture_is_rejected_with_one_sentence():
    rng = np.random.default_rng(0)
    lengths = np.concatenate([rng.exponential(205.0, 500_000) + 30,
                              rng.normal(1600.0, 60.0, 2500)])   # a climb's second hump
    fit = fit_tail(10, binned(lengths), measure="cards")
    assert not fit.accepted
    assert fit.p_value < 1e-10
    assert "not exponential" in fit.reason and "chi-square" in fit.reason
    assert "." not in fit.reason.replace("p = ", "")[:-1].split("(")[0]   # one sentence


def test_exact_two_humped_counts_are_rejected():
    counts = geometric(10**6, 205.0)
    for b in range(150, 171):      # 2,000 games in a hump around 1,600 cards
        counts[b] += 95
    assert not fit_tail(10, counts, measure="cards").accepted


def test_no_fit_from_too_few_games_or_no_spread():
    assert "at least 50" in fit_tail(10, {3: 20, 4: 10}, measure="cards").reason
    assert "same length" in fit_tail(1, {5: 10_000}, measure="cards").reason
    assert "no games" in fit_tail(1, {}, measure="cards").reason
    few = fit_tail(1, {3: 600, 4: 300, 5: 100}, measure="bouts")
    assert not few.accepted and "bouts" in few.reason


def test_the_overflow_bin_is_treated_as_every_longer_game():
    counts = geometric(10**6, 205.0, bins=400)
    q = math.exp(-10 / 205.0)
    counts = {b: n for b, n in counts.items() if b < 150}
    counts[150] = round(10**6 * q**150)   # the log's last bin holds the rest
    fit = fit_tail(10, counts, overflow=150, measure="cards")
    assert fit.accepted and fit.scale == pytest.approx(205.0, rel=0.03)


def test_expected_longest_is_the_mean_maximum_of_exponentials():
    fit = fit_tail(10, geometric(10**7, 200.0), measure="cards")
    assert fit.accepted
    n = 10**9
    # P(L >= x) = p_u exp(-(x - u)/s): the maximum of n lengths is Gumbel around
    # u + s ln(n p_u), with mean + s * gamma.
    centre = fit.threshold + fit.scale * math.log(n * fit.tail_share)
    assert expected_longest(fit, n) == pytest.approx(centre + fit.scale * EULER_GAMMA, rel=1e-6)
    assert longest_quantile(fit, n, math.exp(-1)) == pytest.approx(centre, rel=1e-9)
    # A best so far above every likely maximum stays the expectation.
    assert expected_longest(fit, n, best=10**5) == pytest.approx(10**5)


def test_expected_longest_agrees_with_simulated_maxima():
    # Every game in the tail (threshold 0): lengths k with P(L >= k) = 0.99**k.
    fit = TailFit(1, 10**5, 10**5, 0, -1 / math.log(0.99), 0.0, 1, 1.0, True, measure="cards")
    rng = np.random.default_rng(1)
    # Maxima of 10**5 geometric lengths, many times over.
    maxima = [rng.geometric(1 - 0.99, 10**5).max() - 1 for _ in range(300)]
    predicted = expected_longest(fit, 10**5)
    assert abs(np.mean(maxima) - predicted) < 3 * np.std(maxima) / math.sqrt(300) + 1


def test_projection_to_a_target_and_by_the_budget_end():
    fit = fit_tail(10, geometric(10**7, 200.0), measure="cards")
    p = project(fit, deals=10**7, best=3000, budget_deals=10**8, rate=1e5, workers=4,
                target=6000)
    assert p.deals_to_target == pytest.approx(1 / fit.survival(6000))
    assert p.wall_seconds_to_target == pytest.approx(p.deals_to_target / 1e5)
    assert p.core_hours_to_target == pytest.approx(p.deals_to_target / 1e5 * 4 / 3600)
    assert p.expected_longest is not None and p.longest_range is not None
    low, high = p.longest_range
    assert 3000 <= low < p.expected_longest < high
    assert 0 < p.target_chance_by_end < 1e-3
    low, high = p.deals_to_target_range
    assert low < p.deals_to_target < high
    assert "6,000" in p.progress_text() and "core-h" in p.progress_text()
    # A time budget: the remaining seconds at the measured rate.
    timed = project(fit, 10**7, 3000, rate=1e5, remaining_seconds=900)
    assert timed.budget_deals == 10**7 + 9 * 10**7
    assert project(fit, 10**7, 6100, target=6000).deals_to_target == 0


def test_a_rejected_fit_predicts_nothing():
    counts = geometric(10**6, 205.0)
    for b in range(150, 171):
        counts[b] += 95
    p = project(fit_tail(10, counts, measure="cards"), 10**6, 2000, 10**7, 1e5, 1, 6000)
    assert p.expected_longest is None and p.deals_to_target is None
    assert p.summary_lines() == [f"No projection: {p.reason}."]
    assert p.to_json()["accepted"] is False


@pytest.fixture(scope="module")
def small_log(tmp_path_factory):
    db = tmp_path_factory.mktemp("projection") / "log.sqlite"
    for argv in (["random", "--deals", "300000", "--seed", "5"],
                 ["climb", "--deals", "20000", "--seed", "6"]):
        assert main(["search", *argv, "--workers", "1", "--db", str(db), "--json",
                     "--quiet"]) == 0
    return db


def test_run_projection_reads_a_random_run_and_refuses_a_climb(small_log, capsys):
    capsys.readouterr()
    log = RecordLog(small_log)
    random_run, climb = log.runs()
    p = run_projection(log, random_run, target=6000)
    assert p is not None and p.fit.accepted, p and p.reason
    assert p.deals == 300_000 and p.budget_deals == 300_000
    assert 100 < p.fit.scale < 300           # published: about 205 cards
    assert p.best == random_run["checkpoint"]["best"]["cards"]
    assert p.deals_to_target and p.deals_to_target > 1e10
    assert run_projection(log, climb) is None


def test_runs_projection_merges_the_random_runs_of_a_setting(small_log):
    log = RecordLog(small_log)
    runs = log.runs()
    merged = runs_projection(log, runs, target=6000)
    single = run_projection(log, runs[0], target=6000)
    assert merged is not None and single is not None
    assert merged.deals == single.deals and merged.fit.scale == single.fit.scale
    assert merged.budget_deals is None and "10 times" in merged.summary_lines()[1]
    assert runs_projection(log, runs[1:]) is None   # a climb alone: nothing to project


def on_a_gpu(run, deals, seconds):
    """A logged run as a GPU run of ``deals`` deals in ``seconds`` (one worker) would be."""
    return {**run, "deals": deals, "seconds": seconds, "workers": 1,
            "options": {**run["options"], "device": "gpu", "workers": None}}


def test_a_gpu_runs_projection_quotes_gpu_hours_at_its_own_rate(small_log):
    log = RecordLog(small_log)
    random_run = log.runs()[0]
    gpu_run = on_a_gpu(random_run, 3 * 10**8, 1.0)
    p = run_projection(log, gpu_run, target=6000)
    assert p.rate == 3e8 and p.to_json()["hours_of"] == "GPU"
    assert "GPU-hours" in p.summary_lines()[-1] and "core-hours" not in p.summary_lines()[-1]
    assert "GPU-h)" in p.progress_text()
    assert "core-hours" in run_projection(log, random_run, target=6000).summary_lines()[-1]
    # host workers that feed the one GPU do not multiply its hours
    fed = run_projection(log, {**gpu_run, "workers": 4}, target=6000)
    assert fed.core_hours_to_target == pytest.approx(p.core_hours_to_target)
    assert fed.core_hours_to_target == pytest.approx(fed.wall_seconds_to_target / 3600)


def test_a_settings_projection_does_not_mix_a_gpus_rate_with_the_cores(small_log):
    """records' projection of a setting run on a GPU and on the CPU: the rate per worker is
    the CPU runs' (a GPU and a core are no one worker); of GPU runs alone, the GPUs'."""
    log = RecordLog(small_log)
    random_run = log.runs()[0]
    per_core = random_run["deals"] / (random_run["seconds"] * random_run["workers"])
    gpu_run = on_a_gpu(random_run, 3 * 10**8, 1.0)
    mixed = runs_projection(log, [random_run, gpu_run], target=6000)
    assert mixed.rate == pytest.approx(per_core) and mixed.unit == "core"
    assert mixed.deals == random_run["deals"] + 3 * 10**8     # the tail: every run's
    gpus = runs_projection(log, [gpu_run, on_a_gpu(random_run, 10**8, 1.0)], target=6000)
    assert gpus.rate == pytest.approx(2e8) and "GPU-hours" in gpus.summary_lines()[-1]


def test_the_progress_line_shows_what_the_runs_own_tail_predicts(tmp_path):
    from dealsearch.log import RecordLog
    from dealsearch.search.runner import Runner
    from dealsearch.search.spec import SearchSpec

    spec = SearchSpec.from_json({"game": "beggar", "strategy": "random", "deals": 2_000_000,
                                 "seed": 1, "workers": 1})
    with RecordLog(tmp_path / "log.sqlite") as log:
        runner = Runner(spec, log, progress=False, target=6000)
        assert runner.run().status == "done"
        text = runner._projection(elapsed=1.0)
    assert "6,000 in ~" in text and "core-h" in text  # the budget is spent: the cost to go
    climb = SearchSpec.from_json({"game": "beggar", "strategy": "climb", "deals": 20_000,
                                  "seed": 1, "workers": 1})
    with RecordLog(tmp_path / "climb.sqlite") as log:
        runner = Runner(climb, log, progress=False, target=6000)
        runner.run()
        assert runner._projection(elapsed=1.0) == ""  # a climb's lengths are not random deals
