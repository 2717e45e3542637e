"""What a random search can expect: the exponential tail of its own lengths, tested, projected.

The longest games of a random search are rare events in the tail of the length distribution.
If that tail is exponential (counts fall by a factor e every ``scale`` cards), the run's own
length histogram says how long the longest deal of a bigger budget will be, and how many deals
a target length costs. This module is game-free: it sees a binned histogram
(``{bin: count}``, bin ``b`` holding lengths ``[b*width, (b+1)*width)``, as the log stores
it) and the run's counters, nothing else.

**The model.** The tail is the games at or beyond a threshold ``u`` (a bin edge): the
``TAIL_FRACTION`` longest games (1 %), but at most ``MAX_TAIL`` and at least ``MIN_TAIL``
of them. If lengths beyond ``u`` are exponential, the tail's bins are geometric: bin offset
``k`` holds a share ``q**k * (1 - q)``, ``q = exp(-width / scale)``. The scale is fitted by
maximum likelihood (a censored last bin, the log's overflow, is allowed for).

**The check.** A chi-square goodness-of-fit test of the tail's bin counts against the fitted
geometric (bins merged until each expects at least 5 games; degrees of freedom = groups - 2,
one for the total and one for the fitted scale). The fit is *accepted* when p >= ``ALPHA``
(0.01). Chi-square rather than Kolmogorov-Smirnov or Anderson-Darling because the log keeps
binned, often integer, lengths (Durak: bouts 4 to 30): the continuous tests' critical values
do not hold with ties, while the chi-square test is exact for binned counts. The tail is capped
at ``MAX_TAIL`` games so the test judges the shape of the far tail, which is what is
extrapolated, and does not reject a useful straight line for a 1 % wiggle that millions of
games can resolve. A rejected fit gives no prediction, only a one-sentence reason.

**The projection.** With ``p_u`` the share of games beyond ``u``, ``P(L >= x) = p_u *
exp(-(x - u) / scale)``. The longest of ``M = p_u * N`` tail games has the Gumbel law
``P(max <= x) = exp(-M exp(-(x - u) / scale))``; the longest by the end of a budget is the
larger of the best so far and the longest of the deals still to play. A target ``T`` costs
``1 / P(L >= T)`` deals on average.

>>> import math
>>> counts = {b: round(1e6 * (math.exp(-b / 20) - math.exp(-(b + 1) / 20))) for b in range(400)}
>>> fit = fit_tail(10, counts, measure="cards")
>>> fit.accepted, round(fit.scale, -1)
(True, 200.0)
>>> p = project(fit, deals=10**6, best=2900, budget_deals=10**7, target=6000)
>>> round(p.expected_longest, -2), f"{p.deals_to_target:.1e}"
(3300.0, '1.8e+13')
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from .game import get_game, histogram
from .strategies import random_deals
from .text import duration

TAIL_FRACTION = 0.01   # the tail: the longest 1 % of the games ...
MAX_TAIL = 2000        # ... but at most this many (the test then judges the far tail) ...
MIN_TAIL = 50          # ... and at least this many, or there is no fit
ALPHA = 0.01           # the chi-square test's level: accepted when p >= ALPHA
MIN_EXPECTED = 5.0     # chi-square groups: merged bins expect at least this many games
EULER_GAMMA = 0.5772156649015329
RANGE = (0.1, 0.9)     # the range given for the longest deal: its 10 % and 90 % quantiles


@dataclass(frozen=True)
class TailFit:
    """An exponential tail fitted to a binned length histogram, with its chi-square test.

    ``threshold`` is where the tail starts (a bin edge, in the measure's units); beyond it
    counts fall by a factor e every ``scale`` units. ``accepted`` says whether the
    goodness-of-fit test accepts the fit; if not, ``reason`` says why in one sentence and
    nothing should be predicted from it.
    """

    width: int
    games: int          # every game in the histogram
    tail_games: int     # games at or beyond the threshold
    threshold: int
    scale: float        # nan if there was nothing to fit
    statistic: float    # chi-square (nan without a test)
    dof: int
    p_value: float      # nan without a test
    accepted: bool
    reason: str = ""    # one sentence when not accepted
    measure: str = field(kw_only=True)   # the unit of the lengths: a measure of the game

    @property
    def tail_share(self) -> float:
        """The share of all games that lie in the tail (``p_u``)."""
        return self.tail_games / self.games if self.games else 0.0

    def survival(self, length: float) -> float:
        """P(a game lasts at least ``length``), for lengths at or beyond the threshold.

        >>> fit = TailFit(10, 1000, 100, 500, 100.0, 0.0, 1, 1.0, True, measure="cards")
        >>> round(fit.survival(600), 4)
        0.0368
        """
        return self.tail_share * math.exp(-(max(length, self.threshold) - self.threshold)
                                          / self.scale)

    @property
    def scale_text(self) -> str:
        """The scale with sensible precision ('205', '1.26').

        >>> TailFit(1, 10, 10, 5, 1.2634, 0, 1, 1, True, measure="cards").scale_text
        '1.26'
        """
        return f"{self.scale:,.0f}" if self.scale >= 100 else f"{self.scale:.3g}"

    def describe(self) -> str:
        """One sentence: the fit and its test, or why there is none.

        >>> print(TailFit(10, 1000, 100, 500, 205.4, 12.0, 15, 0.68, True,
        ...               measure="cards").describe())
        ... # doctest: +NORMALIZE_WHITESPACE
        beyond 500 cards (100 games) the counts fall by a factor e every 205 cards
        (chi-square 12.0, 15 dof, p = 0.68 >= 0.01: exponential accepted)
        """
        if not self.accepted:
            return self.reason
        measure = self.measure
        return (f"beyond {self.threshold:,} {measure} ({self.tail_games:,} games) the counts "
                f"fall by a factor e every {self.scale_text} {measure} (chi-square "
                f"{self.statistic:.1f}, {self.dof} dof, p = {_p_text(self.p_value)} >= "
                f"{ALPHA:g}: exponential accepted)")


def _p_text(p: float) -> str:
    return f"{p:.2f}" if p >= 0.01 else f"{p:.0e}"


def fit_tail(width: int, counts: Mapping[int, int], overflow: int | None = None, *,
             measure: str) -> TailFit:
    """Fit and test the exponential tail of a binned length histogram.

    ``counts`` maps a bin to its games (bin ``b`` holds lengths ``[b*width, (b+1)*width)``);
    ``overflow`` is the histogram's last bin if it holds every longer game too (the log's
    histograms end in one: :func:`dealsearch.game.histogram`). ``measure`` only names
    the unit in the reason of a rejection.

    >>> fit = fit_tail(1, {3: 60, 4: 30, 5: 20}, measure="cards")
    >>> print(fit.reason)  # doctest: +NORMALIZE_WHITESPACE
    the tail (50 games beyond 4 cards) spans fewer than 3 groups of lengths,
    too few to test an exponential
    """
    counts = {int(b): int(n) for b, n in counts.items() if n}
    games = sum(counts.values())
    nan = float("nan")
    if not games:
        return TailFit(width, 0, 0, 0, nan, nan, 0, nan, False, "no games were played",
                       measure=measure)
    wanted = min(max(math.ceil(TAIL_FRACTION * games), MIN_TAIL), MAX_TAIL)
    # The threshold: the highest bin edge with at least `wanted` games at or beyond it.
    start, tail = min(counts), games
    running = 0
    for b in sorted(counts, reverse=True):
        running += counts[b]
        if running >= wanted:
            start, tail = b, running
            break
    threshold = start * width
    if tail < MIN_TAIL:
        return TailFit(width, games, tail, threshold, nan, nan, 0, nan, False,
                       f"only {games:,} games were played; a tail fit needs at least "
                       f"{MIN_TAIL} games in the tail", measure=measure)
    offsets = {b - start: n for b, n in counts.items() if b >= start}
    last = overflow - start if overflow is not None and overflow >= start else None
    censored = offsets.pop(last, 0) if last is not None else 0
    if not censored:
        last = None
    # Maximum likelihood of a geometric with a censored last bin: q = S / (S + uncensored).
    total_offset = sum(k * n for k, n in offsets.items()) + (last or 0) * censored
    uncensored = sum(offsets.values())
    if total_offset == 0:
        return TailFit(width, games, tail, threshold, nan, nan, 0, nan, False,
                       f"every game of the tail has the same length ({threshold:,} {measure}): "
                       "there is no slope to fit", measure=measure)
    q = total_offset / (total_offset + uncensored)
    scale = -width / math.log(q)
    statistic, dof = _chi_square(offsets, censored, last, q, tail)
    if dof < 1:
        return TailFit(width, games, tail, threshold, scale, nan, 0, nan, False,
                       f"the tail ({tail:,} games beyond {threshold:,} {measure}) spans fewer "
                       "than 3 groups of lengths, too few to test an exponential",
                       measure=measure)
    p = chi2_sf(statistic, dof)
    if p < ALPHA:
        return TailFit(width, games, tail, threshold, scale, statistic, dof, p, False,
                       f"the {tail:,} longest games (beyond {threshold:,} {measure}) are not "
                       f"exponential: a chi-square test rejects the fit (chi-square "
                       f"{statistic:.0f} on {dof} dof, p = {_p_text(p)} < {ALPHA:g})",
                       measure=measure)
    return TailFit(width, games, tail, threshold, scale, statistic, dof, p, True,
                   measure=measure)


def _chi_square(offsets: Mapping[int, int], censored: int, last: int | None, q: float,
                tail: int) -> tuple[float, int]:
    """Pearson's statistic of the tail's bins against the geometric ``q``, bins merged from
    the start until each group expects ``MIN_EXPECTED`` games; the last group takes every
    longer game. Returns (statistic, groups - 2)."""
    groups: list[tuple[float, float]] = []
    observed = expected = 0.0
    end = last if last is not None else max(offsets, default=0) + 1
    k = 0   # the first bin not yet in a group
    while k < end:
        observed += offsets.get(k, 0)
        expected += tail * q**k * (1 - q)
        k += 1
        rest = tail * q**k
        if rest < MIN_EXPECTED:
            break
        if expected >= MIN_EXPECTED:
            groups.append((observed, expected))
            observed = expected = 0.0
    # The last group: what is left open, and every game from bin k on (censored ones too).
    rest_observed = sum(n for j, n in offsets.items() if j >= k) + censored
    groups.append((observed + rest_observed, expected + tail * q**k))
    statistic = sum((o - e) ** 2 / e for o, e in groups if e > 0)
    return statistic, len(groups) - 2


# The statistics here (chi2_sf, _ein, the Gumbel quantile of longest_quantile) are written by
# hand rather than taken from scipy: scipy would be a 35 MB dependency of the core install,
# imported by every search's live projection, for some sixty lines. tests/framework/
# test_statistics.py holds each to scipy's (a test requirement) over its whole range.
def chi2_sf(x: float, dof: int) -> float:
    """P(chi-square with ``dof`` degrees of freedom >= ``x``): the upper regularised gamma
    function Q(dof/2, x/2), by its series or its continued fraction (Numerical Recipes 6.2).

    >>> round(chi2_sf(3.841, 1), 3), round(chi2_sf(9.210, 2), 3), round(chi2_sf(30.0, 30), 3)
    (0.05, 0.01, 0.466)
    """
    if x <= 0:
        return 1.0
    a, y = dof / 2, x / 2
    log_front = -y + a * math.log(y) - math.lgamma(a)
    if y < a + 1:   # the series of P(a, y)
        term = total = 1 / a
        n = a
        for _ in range(10_000):
            n += 1
            term *= y / n
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1 - total * math.exp(log_front))
    # Lentz's continued fraction of Q(a, y).
    tiny = 1e-300
    b = y + 1 - a
    c, d = 1 / tiny, 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return min(1.0, math.exp(log_front) * h)


@dataclass(frozen=True)
class Projection:
    """What a run can expect, from its own accepted tail fit (or why nothing is predicted).

    Lengths are in the measure's units; ``None`` where a figure does not apply (no budget,
    no target, no measured rate). ``deals_to_target`` counts deals still to play from now
    (0 if the target is already reached); core-hours (GPU-hours for a run on a GPU: ``unit``)
    and wall time are at the run's measured rate.
    """

    fit: TailFit
    deals: int                       # played so far
    best: int                        # longest so far
    budget_deals: int | None         # the budget's whole deal count, if known
    rate: float | None               # deals per second, all workers
    workers: int
    target: int | None
    expected_longest: float | None = None        # by the budget's end
    longest_range: tuple[float, float] | None = None   # its 10 % and 90 % quantiles
    deals_to_target: float | None = None         # expected, from now
    core_hours_to_target: float | None = None
    wall_seconds_to_target: float | None = None
    target_chance_by_end: float | None = None    # P(the target is reached within the budget)
    # deals_to_target with the scale at the ends of its 80 % confidence interval
    deals_to_target_range: tuple[float, float] | None = None
    unit: str = "core"      # what a worker is, for its hours: "core", or "GPU" (hours_unit)

    @property
    def reason(self) -> str:
        """Why nothing is predicted ('' when the fit is accepted)."""
        return self.fit.reason

    def to_json(self) -> dict[str, Any]:
        """The projection as plain data (``--json`` and tests)."""
        fit = self.fit
        return {"accepted": fit.accepted, "reason": fit.reason, "threshold": fit.threshold,
                "scale": None if math.isnan(fit.scale) else fit.scale,
                "tail_games": fit.tail_games, "chi_square": _none(fit.statistic),
                "dof": fit.dof, "p_value": _none(fit.p_value), "deals": self.deals,
                "best": self.best, "budget_deals": self.budget_deals, "rate": self.rate,
                "workers": self.workers, "target": self.target,
                "expected_longest": self.expected_longest,
                "longest_range": None if self.longest_range is None else list(
                    self.longest_range),
                "deals_to_target": self.deals_to_target,
                "core_hours_to_target": self.core_hours_to_target, "hours_of": self.unit,
                "wall_seconds_to_target": self.wall_seconds_to_target,
                "target_chance_by_end": self.target_chance_by_end,
                "deals_to_target_range": None if self.deals_to_target_range is None else list(
                    self.deals_to_target_range)}

    def longest_after(self, total_deals: float) -> float:
        """The expected longest game once ``total_deals`` deals are played in all (at least
        the best so far); nan with a rejected fit."""
        if not self.fit.accepted:
            return float("nan")
        return expected_longest(self.fit, max(total_deals - self.deals, 0), self.best)

    def progress_text(self) -> str:
        """A few words for a progress line.

        >>> import math
        >>> c = {b: round(1e6 * (math.exp(-b / 20) - math.exp(-(b + 1) / 20))) for b in range(400)}
        >>> fit = fit_tail(10, c, measure="cards")
        >>> project(fit, 10**6, 2900, 10**7, 100.0, 1, 6000).progress_text()
        'expect ~3,300 by the end; 6,000 in ~1.8e+13 deals (5.1e+07 core-h)'
        """
        if not self.fit.accepted:
            return "no projection (tail not exponential)"
        parts = []
        if self.expected_longest is not None and (self.budget_deals or 0) > self.deals:
            parts.append(f"expect ~{_round(self.expected_longest):,} by the end")
        if self.target is not None and self.deals_to_target is not None:
            if self.deals_to_target == 0:
                parts.append(f"{self.target:,} reached")
            else:
                text = f"{self.target:,} in ~{self.deals_to_target:.1e} deals"
                if self.core_hours_to_target is not None:
                    text += f" ({_count(self.core_hours_to_target)} {self.unit}-h)"
                parts.append(text)
        return "; ".join(parts) or f"tail scale {self.fit.scale_text} {self.fit.measure}"

    def summary_lines(self) -> list[str]:
        """Plain sentences for a summary, ``records`` or the report (no HTML).

        >>> import math, textwrap
        >>> c = {b: round(1e6 * (math.exp(-b / 20) - math.exp(-(b + 1) / 20))) for b in range(400)}
        >>> for line in project(fit_tail(10, c, measure="cards"), 10**6, 2900, 10**7, 100.0, 1, 6000
        ...                     ).summary_lines()[1:]:
        ...     print(textwrap.fill(line, 90))
        Expected longest deal by the end of the budget (10,000,000 deals): about 3,300 cards (80 %
        range 3,000 to 3,600).
        To reach 6,000 cards: about 1.8e+13 more deals on average (80 % range 9e+12 to 4e+13, from
        the scale's error), 5.1e+07 core-hours, 5,820 years of wall time at 100 deals/s (chance
        within the budget: below 0.1 %).
        """
        fit = self.fit
        measure = fit.measure
        if not fit.accepted:
            return [f"No projection: {fit.reason}."]
        lines = [f"Tail: {fit.describe()}."]
        if self.budget_deals is None or self.budget_deals <= self.deals:
            start = "So far" if self.budget_deals is None else "The budget is spent"
            lines.append(f"{start} ({self.deals:,} deals played, longest {self.best:,} "
                         f"{measure}). With 10 times as many deals expect about "
                         f"{_round(self.longest_after(10 * self.deals)):,} {measure}, with 100 "
                         f"times about {_round(self.longest_after(100 * self.deals)):,}.")
        elif self.expected_longest is not None and self.longest_range is not None:
            low, high = self.longest_range
            lines.append(f"Expected longest deal by the end of the budget "
                         f"({self.budget_deals:,} deals): about "
                         f"{_round(self.expected_longest):,} {measure} (80 % range "
                         f"{_round(low):,} to {_round(high):,}).")
        if self.target is not None and self.deals_to_target is not None:
            if self.deals_to_target == 0:
                lines.append(f"The target {self.target:,} {measure} is already reached "
                             f"({self.best:,}).")
            else:
                text = (f"To reach {self.target:,} {measure}: about "
                        f"{self.deals_to_target:.2g} more deals on average")
                if self.deals_to_target_range is not None:
                    low, high = self.deals_to_target_range
                    text += f" (80 % range {low:.1g} to {high:.1g}, from the scale's error)"
                if self.core_hours_to_target is not None and self.rate:
                    text += (f", {_count(self.core_hours_to_target)} {self.unit}-hours, "
                             f"{duration(self.wall_seconds_to_target or 0)} of wall time "
                             f"at {self.rate:,.0f} deals/s")
                if self.target_chance_by_end is not None and self.budget_deals is not None \
                        and self.budget_deals > self.deals:
                    text += f" (chance within the budget: {_percent(self.target_chance_by_end)})"
                lines.append(text + ".")
        return lines


def _percent(chance: float) -> str:
    """
    >>> _percent(0.5), _percent(1e-9), _percent(0.9999)
    ('50 %', 'below 0.1 %', '99.99 %')
    """
    if chance < 0.001:
        return "below 0.1 %"
    return f"{100 * chance:.2g} %" if chance < 0.99 else f"{100 * chance:.4g} %"


def _none(value: float) -> float | None:
    return None if math.isnan(value) else value


def _round(value: float) -> int:
    """Lengths to two or three significant figures: a projection is not exact."""
    if value < 1000:
        return round(value)
    return int(round(value, -2))


def _count(value: float) -> str:
    return f"{value:,.0f}" if value < 10_000 else f"{value:.1e}"


def space_projection(deals: int, rate: float, cores: int, workers: int = 100,
                     device: str = "cpu") -> str:
    """How long an exhaustive search of ``deals`` takes at ``rate`` deals per second a core,
    on this machine's ``cores`` and on ``workers`` such cores, as a clause. The rate is a CPU
    core's: for a search on another ``device`` the clause says so (no device is measured
    before its run starts).

    >>> space_projection(193_584_473_082_000, 1.5e6, 2)
    ' (at 1,500,000 deals/s a core, measured here: 2 years on these 2 cores, 14.9 days on 100)'
    >>> space_projection(193_584_473_082_000, 1.5e6, 2, device="gpu")[:61]
    ' (on the CPU, not --device gpu: at 1,500,000 deals/s a core, '
    """
    if rate <= 0:
        return ""
    where = "" if device == "cpu" else f"on the CPU, not --device {device}: "
    return (f" ({where}at {rate:,.0f} deals/s a core, measured here: "
            f"{duration(deals / rate / cores)} on these {cores} cores, "
            f"{duration(deals / rate / workers)} on {workers})")


def expected_longest(fit: TailFit, deals: float, best: float = 0.0) -> float:
    """The expected longest game after ``deals`` more deals, given the best so far ``best``:
    ``E[max(best, Y)]``, ``Y`` the Gumbel longest of the new deals' tail games.

    With no best this is ``u + scale * (ln M + gamma)``, ``M`` the expected tail games:

    >>> fit = TailFit(10, 1000, 10, 500, 100.0, 0.0, 1, 1.0, True, measure="cards")
    >>> round(expected_longest(fit, 1e6))
    1479
    """
    m = fit.tail_share * deals
    if m <= 0:
        return float(best)
    start = max(float(best), float(fit.threshold))
    # E[max(start, Y)] = start + integral over x > start of P(Y > x); in z = M e^(-(x-u)/s),
    # that is scale * Ein(z_start), Ein(z) = integral from 0 to z of (1 - e^-t) / t dt.
    z = m * math.exp(-(start - fit.threshold) / fit.scale)
    return start + fit.scale * _ein(z)


def _ein(z: float) -> float:
    """Ein(z) = integral from 0 to z of (1 - e^-t)/t dt = E1(z) + ln z + gamma.

    >>> round(_ein(1.0), 6), round(_ein(50.0) - math.log(50.0), 6)
    (0.7966, 0.577216)
    """
    if z <= 0:
        return 0.0
    if z < 2:   # the alternating series: sum of (-1)^(k+1) z^k / (k k!)
        total, term, k = 0.0, 1.0, 0
        while True:
            k += 1
            term *= z / k
            add = term / k * (1 if k % 2 else -1)
            total += add
            if abs(add) < 1e-17:
                return total
    # E1 by its continued fraction (Numerical Recipes 6.3), for z >= 2.
    b = z + 1
    c, d = 1e300, 1 / b
    h = d
    for i in range(1, 1000):
        an = -i * i
        b += 2
        d = 1 / (an * d + b)
        c = b + an / c
        delta = c * d
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return h * math.exp(-z) + math.log(z) + EULER_GAMMA


def longest_quantile(fit: TailFit, deals: float, chance: float, best: float = 0.0) -> float:
    """The length the longest game after ``deals`` more deals stays under with probability
    ``chance`` (at least ``best``).

    >>> fit = TailFit(10, 1000, 10, 500, 100.0, 0.0, 1, 1.0, True, measure="cards")
    >>> round(longest_quantile(fit, 1e6, 0.5))
    1458
    """
    m = fit.tail_share * deals
    if m <= 0:
        return float(best)
    return max(float(best), fit.threshold + fit.scale * (math.log(m) - math.log(-math.log(
        chance))))


def project(fit: TailFit, deals: int, best: int, budget_deals: int | None = None,
            rate: float | None = None, workers: int = 1, target: int | None = None,
            remaining_seconds: float | None = None, unit: str = "core") -> Projection:
    """What a run that has played ``deals`` deals (longest ``best``) can expect.

    The budget is ``budget_deals`` (the run's whole deal count) or, for a time budget,
    ``remaining_seconds`` at ``rate`` deals per second (all ``workers`` together, each a
    ``unit``: see :func:`hours_unit`). With a rejected fit only the reason is given.

    >>> import math
    >>> c = {b: round(1e5 * (math.exp(-b / 20) - math.exp(-(b + 1) / 20))) for b in range(400)}
    >>> p = project(fit_tail(10, c, measure="cards"), deals=10**5, best=2400, budget_deals=10**6)
    >>> round(p.expected_longest, -2)
    2800.0
    """
    if not fit.accepted:
        return Projection(fit, deals, best, budget_deals, rate, workers, target, unit=unit)
    if budget_deals is None and remaining_seconds is not None and rate:
        budget_deals = deals + round(remaining_seconds * rate)
    expected = longest = None
    if budget_deals is not None:
        more = max(budget_deals - deals, 0)
        expected = expected_longest(fit, more, best)
        longest = (longest_quantile(fit, more, RANGE[0], best),
                   longest_quantile(fit, more, RANGE[1], best))
    to_target = core_hours = wall = chance = None
    to_range: tuple[float, float] | None = None
    if target is not None:
        chance_one = fit.survival(target) if target >= fit.threshold else None
        if best >= target:
            to_target, chance = 0.0, 1.0
        elif chance_one:
            to_target = 1 / chance_one
            # The scale's maximum-likelihood standard error is about scale / sqrt(tail games);
            # a target far out magnifies it: the cost's range at the scale's 80 % interval.
            spread = 1.2816 / math.sqrt(fit.tail_games)
            low_cost, high_cost = (1 / replace(fit, scale=fit.scale * (1 + z * spread))
                                   .survival(target) for z in (1, -1))
            to_range = (low_cost, high_cost)
            if rate:
                wall = to_target / rate
                # a GPU run's workers feed the one GPU: its hours are the GPU's
                core_hours = wall * (1 if unit == "GPU" else max(workers, 1)) / 3600
            if budget_deals is not None:
                chance = -math.expm1(-max(budget_deals - deals, 0) * chance_one)
    return Projection(fit, deals, best, budget_deals, rate, workers, target, expected, longest,
                      to_target, core_hours, wall, chance, to_range, unit)


def hours_unit(device: str) -> str:
    """What a worker of a run on ``device`` is, for the hours a projection quotes: a GPU, or
    a CPU core (``--device emulate`` runs on the CPU's cores).

    >>> hours_unit("gpu"), hours_unit("cpu"), hours_unit("emulate")
    ('GPU', 'core', 'core')
    """
    return "GPU" if device == "gpu" else "core"


# --- For the CLI: a live search, and a run from the log ----------------------------------


def live_projection(game: str, strategy: str, measure: str, width: int,
                    counts: Mapping[int, int], deals: int, best: int,
                    budget_deals: int | None = None, rate: float | None = None,
                    workers: int = 1, target: int | None = None,
                    remaining_seconds: float | None = None, unit: str = "core"
                    ) -> Projection | None:
    """The projection of a search in progress, from the histogram it holds in memory (the
    one it saves to the log): None unless the strategy is ``random``. Fast enough for every
    progress line (well under a millisecond for the log's 2,048-bin histograms).

    >>> import math
    >>> c = {b: round(1e6 * (math.exp(-b / 20) - math.exp(-(b + 1) / 20))) for b in range(400)}
    >>> live_projection("beggar", "random", "cards", 10, c, 10**6, 2900, 10**7).progress_text()
    'expect ~3,300 by the end'
    >>> live_projection("beggar", "climb", "cards", 10, c, 10**6, 2900) is None
    True
    """
    if not random_deals(strategy):
        return None
    _, bins = histogram(get_game(game), measure)
    fit = fit_tail(width, counts, overflow=bins - 1, measure=measure)
    return project(fit, deals, best, budget_deals, rate, workers, target, remaining_seconds,
                   unit)




def run_projection(log: Any, run: Mapping[str, Any], target: int | None = None,
                   measure: str | None = None) -> Projection | None:
    """The projection of one logged run (a :meth:`dealsearch.log.store.RecordLog.run` dict), or
    None for runs that are not random searches (their lengths are not random deals: a climb
    replays near-copies of its parents, an exhaustive run walks a whole deck).

    ``measure`` defaults to the run's objective. The budget is the run's ``--deals``, or its
    ``--time`` at the measured rate; a run without either has no "by the end".
    """
    if not random_deals(run.get("strategy", "")):
        return None
    game = get_game(run["game"])
    measure = measure or run["options"].get("objective") or game.measures[0]
    width, counts = log.histogram([run["id"]], measure)
    _, bins = histogram(game, measure)
    fit = fit_tail(width or 1, counts, overflow=bins - 1, measure=measure)
    deals = int(run["deals"])
    seconds = float(run["seconds"] or 0)
    workers = int(run.get("workers") or 1)
    rate = deals / seconds if seconds > 0 and deals else None
    best = int((run["checkpoint"].get("best") or {}).get(measure) or 0)
    if not best and counts:
        best = (max(counts) + 1) * (width or 1) - 1   # the histogram's bound if no find says
    options = run["options"]
    budget = options.get("deals")
    remaining = None
    if budget is None and options.get("time"):
        remaining = max(float(options["time"]) - seconds, 0.0)
    return project(fit, deals, best, budget, rate, workers, target, remaining,
                   hours_unit(options.get("device", "cpu")))


def runs_projection(log: Any, runs: list[Mapping[str, Any]], target: int | None = None,
                    measure: str | None = None) -> Projection | None:
    """One projection from several logged runs of one game setting (``records`` per
    setting): their random searches' histograms merged, deals summed, the best of them, the
    speed per worker of all of them together (of those on the CPU, if some ran on a GPU and
    some not: a GPU and a core are no one worker); no budget (so the 10x and 100x horizons).
    None if none of them is a random search; ``ValueError`` if they mix games or settings.
    """
    chosen = [run for run in runs if random_deals(run.get("strategy", ""))]
    if not chosen:
        return None
    if len({(run["game"], run["options_key"]) for run in chosen}) > 1:
        raise ValueError("runs_projection needs runs of one game and setting")
    game = get_game(chosen[0]["game"])
    measure = measure or chosen[0]["options"].get("objective") or game.measures[0]
    width, counts = log.histogram([run["id"] for run in chosen], measure)
    _, bins = histogram(game, measure)
    fit = fit_tail(width or 1, counts, overflow=bins - 1, measure=measure)
    deals = sum(int(run["deals"]) for run in chosen)
    units = [hours_unit(run["options"].get("device", "cpu")) for run in chosen]
    unit = "core" if "core" in units else "GPU"
    timed = [run for run, its in zip(chosen, units, strict=True) if its == unit]
    worker_seconds = sum(float(run["seconds"] or 0) * (
        1 if unit == "GPU" else int(run.get("workers") or 1)) for run in timed)
    timed_deals = sum(int(run["deals"]) for run in timed)
    best = max(int((run["checkpoint"].get("best") or {}).get(measure) or 0) for run in chosen)
    rate = timed_deals / worker_seconds if worker_seconds > 0 else None   # per worker
    return project(fit, deals, best, None, rate, 1, target, unit=unit)
