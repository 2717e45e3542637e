"""The projection's hand-written statistics agree with SciPy's over their whole range: the
chi-square survival function (the tail fit's test), Ein (the expected longest game) and the
Gumbel quantile (the longest game's range). SciPy is a test requirement only; why the package
does without it: the comment above :func:`dealsearch.projection.chi2_sf`."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dealsearch.projection import EULER_GAMMA, TailFit, _ein, chi2_sf, longest_quantile

scipy_special = pytest.importorskip("scipy.special", reason="scipy: pip install '.[test]'")
scipy_stats = pytest.importorskip("scipy.stats")
scipy_integrate = pytest.importorskip("scipy.integrate")


@pytest.mark.parametrize("dof", [1, 2, 3, 5, 10, 30, 100, 400])
def test_chi2_sf_is_scipys_from_its_bulk_to_its_far_tail(dof):
    # x from far below the mean to where the tail holds 1e-250: both of its branches (the
    # series below a + 1, the continued fraction above)
    for x in np.geomspace(1e-3, dof + 60 * math.sqrt(2 * dof) + 1200, 300):
        expected = scipy_stats.chi2.sf(x, dof)
        assert chi2_sf(float(x), dof) == pytest.approx(expected, rel=1e-9, abs=1e-300), x
    assert chi2_sf(0.0, dof) == 1.0 and chi2_sf(-1.0, dof) == 1.0


def test_ein_is_the_integral_it_names_for_every_z():
    # Ein(z) = integral of (1 - e^-t)/t from 0 to z: small z (the series), large z (E1 by its
    # continued fraction), across the switch at 2, and where e^-z underflows
    for z in [*np.geomspace(1e-9, 700, 400), 1.999999, 2.0, 2.000001, 5000.0]:
        integral = scipy_integrate.quad(lambda t: -math.expm1(-t) / t, 0, min(z, 60),
                                        epsabs=0, epsrel=1e-13, limit=200)[0]
        if z > 60:   # beyond 60, 1 - e^-t is 1 to double precision: the rest is ln(z / 60)
            integral += math.log(z / 60)
        assert _ein(float(z)) == pytest.approx(integral, rel=1e-11), z
    assert _ein(0.0) == 0.0


def test_ein_is_e1_plus_log_plus_gamma_where_that_loses_nothing():
    for z in np.geomspace(0.5, 700, 200):
        expected = scipy_special.exp1(z) + math.log(z) + EULER_GAMMA
        assert _ein(float(z)) == pytest.approx(expected, rel=1e-12), z


@pytest.mark.parametrize("tail_games", [1.0, 37.5, 1e4, 1e12])
def test_the_longest_quantile_is_scipys_gumbel(tail_games):
    # the longest of M tail games (exponential beyond the threshold, scale s) is Gumbel with
    # location threshold + s ln M and scale s
    fit = TailFit(10, 1000, 10, 500, 100.0, 0.0, 1, 1.0, True, measure="cards")
    deals = tail_games / fit.tail_share
    law = scipy_stats.gumbel_r(loc=fit.threshold + fit.scale * math.log(tail_games),
                               scale=fit.scale)
    for chance in [1e-12, 1e-4, 0.1, 0.5, 0.9, 0.999, 1 - 1e-12]:
        assert longest_quantile(fit, deals, chance) == pytest.approx(law.ppf(chance),
                                                                     rel=1e-9), chance
        best = law.ppf(0.5)   # a best already longer than the quantile is the answer
        assert longest_quantile(fit, deals, chance, best) == pytest.approx(
            max(best, law.ppf(chance)), rel=1e-9), chance
