"""Finishers against independent computations: pass@k and pass^k by enumerating every k-subset
of a case's trials (the definitions, not the closed forms), Wilson by its textbook formula
evaluated by hand, kappa from a 2×2 table worked by hand."""
import itertools
import math
from fractions import Fraction

import pytest

from kg import finishers as f


def brute(n, c, k):
    trials = [True] * c + [False] * (n - c)
    subsets = list(itertools.combinations(range(n), k))
    any_pass = Fraction(sum(any(trials[i] for i in s) for s in subsets), len(subsets))
    all_pass = Fraction(sum(all(trials[i] for i in s) for s in subsets), len(subsets))
    return any_pass, all_pass


@pytest.mark.parametrize("n,c,k", [(n, c, k) for n in range(1, 7) for c in range(n + 1) for k in range(1, n + 1)])
def test_pass_at_k_and_pass_hat_k_match_subset_enumeration(n, c, k):
    any_pass, all_pass = brute(n, c, k)
    assert f.pass_at_k(n, c, k) == any_pass
    assert f.pass_hat_k(n, c, k) == all_pass


def test_n_below_k_is_refused_not_zero():
    with pytest.raises(ValueError):
        f.pass_at_k(2, 1, 3)
    assert f.mean_pass_at_k("2:1", 3) is None  # a short case leaves the metric undefined, not 0
    assert f.mean_pass_hat_k("", 3) is None


def test_means_skip_short_cases():
    # cases (3,2) and (2,1) qualify for k=2; (1,1) is short. pass^2: 1/3 and 0 -> 1/6
    assert f.mean_pass_hat_k("3:2 2:1 1:1", 2) == pytest.approx(1 / 6)
    # pass@2: 1-C(1,2)/C(3,2)=1 and 1-C(1,2)/C(2,2)=1 -> 1
    assert f.mean_pass_at_k("3:2 2:1 1:1", 2) == 1.0


def test_ratio_is_none_without_denominator():
    assert f.ratio(0, 0) is None and f.ratio(None, 3) is None
    assert f.ratio(1, 3) == pytest.approx(1 / 3)


def test_wilson_by_hand():
    # 8 of 10, z = 1.959964, z² = 3.841459: centre = 0.8 + z²/20 = 0.992073;
    # spread = z*sqrt(0.016 + z²/400) = z*sqrt(0.025604) = 0.313618; divided by 1 + z²/10 = 1.384146
    # -> (0.490162, 0.943318)
    assert f.wilson_low(8, 10) == pytest.approx(0.490162, abs=1e-6)
    assert f.wilson_high(8, 10) == pytest.approx(0.943318, abs=1e-6)
    low, high = f.wilson_low(8, 10), f.wilson_high(8, 10)
    z = f.Z95
    assert low == pytest.approx((0.8 + z * z / 20 - z * math.sqrt(0.8 * 0.2 / 10 + z * z / 400)) / (1 + z * z / 10))
    assert high == pytest.approx((0.8 + z * z / 20 + z * math.sqrt(0.8 * 0.2 / 10 + z * z / 400)) / (1 + z * z / 10))
    assert f.wilson_low(0, 0) is None


def test_kappa_by_hand():
    # a=20 both pass, b=5, c=10, d=15; n=50; po=35/50=0.7;
    # pe = (25*30 + 25*20)/2500 = 0.5; kappa = (0.7-0.5)/0.5 = 0.4
    assert f.cohens_kappa(20, 5, 10, 15) == pytest.approx(0.4)
    assert f.cohens_kappa(5, 0, 0, 0) is None  # every verdict in one category: kappa undefined
    assert f.agreement(20, 15, 50) == pytest.approx(0.7)


def test_interval_needs_two_cases():
    assert f.pass_hat_k_low("3:2", 2) is None
    low, high = f.pass_hat_k_low("2:2 2:0", 2), f.pass_hat_k_high("2:2 2:0", 2)
    # values 1 and 0: mean 0.5, s = sqrt(0.5), half = 1.959964*sqrt(0.5)/sqrt(2) = 0.979982
    assert low == 0.0 and high == 1.0
