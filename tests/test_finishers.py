"""Finishers against independent computations: pass@k and pass^k by enumerating every k-subset
of a case's trials (the definitions, not the closed forms), Wilson by its textbook formula
evaluated by hand, kappa from a 2×2 table worked by hand."""
import itertools
import math
from decimal import Decimal, localcontext
from fractions import Fraction

import pytest

from kg import finishers as f
from kg.catalogue import decode_tokens

PAIR, PAIRED = ("integer", "integer"), ("integer", "integer", "integer", "integer", "string")


def counts(text):
    """"n:c …" as pass-at-k GROUP_CONCATs it, decoded as the catalogue hands it to the finishers."""
    return decode_tokens(text, PAIR)


def paired(text):
    return decode_tokens(text, PAIRED)


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
    assert f.mean_pass_at_k(counts("2:1"), 3) is None  # a short case leaves the metric undefined, not 0
    assert f.mean_pass_hat_k(counts(""), 3) is None


def test_means_skip_short_cases():
    # cases (3,2) and (2,1) qualify for k=2; (1,1) is short. pass^2: 1/3 and 0 -> 1/6
    assert f.mean_pass_hat_k(counts("3:2 2:1 1:1"), 2) == pytest.approx(1 / 6)
    # pass@2: 1-C(1,2)/C(3,2)=1 and 1-C(1,2)/C(2,2)=1 -> 1
    assert f.mean_pass_at_k(counts("3:2 2:1 1:1"), 2) == 1.0


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
    assert f.pass_hat_k_low(counts("3:2"), 2) is None
    low, high = f.pass_hat_k_low(counts("2:2 2:0"), 2), f.pass_hat_k_high(counts("2:2 2:0"), 2)
    # values 1 and 0: mean 0.5, s = sqrt(0.5), half = 1.959964*sqrt(0.5)/sqrt(2) = 0.979982
    assert low == 0.0 and high == 1.0


def _wilson_decimal(c: int, n: int) -> tuple[Decimal, Decimal]:
    """The textbook Wilson bounds in 50-digit decimal arithmetic: an independent evaluation whose
    rounding error is far below a float's last bit."""
    with localcontext() as ctx:
        ctx.prec = 50
        z2 = Decimal(repr(f.Z95)) ** 2
        p, n_ = Decimal(c) / Decimal(n), Decimal(n)
        centre = p + z2 / (2 * n_)
        spread = (z2 * (p * (1 - p) / n_ + z2 / (4 * n_ * n_))).sqrt()
        denom = 1 + z2 / n_
        return (centre - spread) / denom, (centre + spread) / denom


@pytest.mark.parametrize("n", [1, 3, 10, 28, 97, 98, 121, 1000])
def test_wilson_bounds_never_cross_the_value_at_the_edges(n):
    """All passed or none: the true bounds touch the value (c = n: high = 1 and low = n/(n+z²);
    c = 0: low = 0 and high = z²/(n+z²), from the formula with p = 1 or 0, by hand), but computed
    in floats they landed a hair on the wrong side (98 of 98 gave 0.9999999999999998 < 1.0, 0 of 3
    gave 4.9e-17 > 0), which broke the report's error bars on the W3C SHACL reports."""
    z2 = f.Z95 ** 2
    assert f.wilson_high(n, n) == 1.0 == f.ratio(n, n)
    assert f.wilson_low(n, n) == pytest.approx(n / (n + z2), rel=1e-12)
    assert f.wilson_low(0, n) == 0.0 == f.ratio(0, n)
    assert f.wilson_high(0, n) == pytest.approx(z2 / (n + z2), rel=1e-12)


def test_wilson_bounds_bracket_the_value_and_match_a_decimal_evaluation():
    for n in range(1, 151):
        for c in range(n + 1):
            low, high, value = f.wilson_low(c, n), f.wilson_high(c, n), f.ratio(c, n)
            assert 0.0 <= low <= value <= high <= 1.0, (c, n, low, value, high)
            exact_low, exact_high = _wilson_decimal(c, n)
            assert low == pytest.approx(float(max(exact_low, Decimal(0))), abs=1e-13), (c, n)
            assert high == pytest.approx(float(min(exact_high, Decimal(1))), abs=1e-13), (c, n)


@pytest.mark.parametrize("case_counts,k", [("5:2 " * 11, 3), ("5:3 " * 11, 2), ("7:3 " * 8, 3), ("3:1 " * 3, 1)])
def test_mean_intervals_never_cross_the_metric_shown(case_counts, k):
    """Every case alike: s = 0 and the interval is the mean itself, but the float mean of floats
    (eleven cases of pass@3 = 9/10 sum to 0.9000000000000001) sat above the exact mean the query
    shows, so the lower bound was above the value."""
    for value, low, high in ((f.mean_pass_at_k, f.pass_at_k_low, f.pass_at_k_high),
                             (f.mean_pass_hat_k, f.pass_hat_k_low, f.pass_hat_k_high)):
        v, lo, hi = value(counts(case_counts), k), low(counts(case_counts), k), high(counts(case_counts), k)
        assert lo == v == hi, (value.__name__, lo, v, hi)


def test_paired_interval_brackets_the_mean_difference():
    for pairs in ("2:1:2:2:a 2:1:2:2:b", "3:1:3:3:a 3:0:3:1:b 5:2:5:5:c", "1:1:1:0:a 1:1:1:0:b 1:0:1:1:c"):
        low, mean, high = (f.paired_interval_low(paired(pairs)), f.paired_mean_difference(paired(pairs)),
                           f.paired_interval_high(paired(pairs)))
        assert -1.0 <= low <= mean <= high <= 1.0, (pairs, low, mean, high)


def mcnemar_by_enumeration(b, c):
    """The exact test from its definition, not the closed form: enumerate every way the b + c
    discordant pairs could have gone (each either way with chance 1/2) and sum the chances of the
    outcomes no more likely than the one observed (the two-sided 'minlike' rule of R's binom.test
    and scipy's binomtest)."""
    n = b + c
    chance = Fraction(1, 2 ** n)
    counts = [sum(outcome) for outcome in itertools.product((0, 1), repeat=n)]
    likelihood = {k: counts.count(k) for k in range(n + 1)}
    return sum(likelihood[k] * chance for k in likelihood if likelihood[k] <= likelihood[b])


@pytest.mark.parametrize("b,c", [(b, c) for b in range(0, 8) for c in range(0, 8) if 0 < b + c <= 12])
def test_mcnemar_matches_an_enumeration_of_outcomes(b, c):
    assert f.mcnemar_exact_p(b, c, b + c) == pytest.approx(float(min(1, mcnemar_by_enumeration(b, c))), abs=1e-15)


def test_mcnemar_by_hand_and_without_pairs():
    # b = 1, c = 5: 2 * (C(6,0) + C(6,1)) / 64 = 14/64 (scipy.stats.binomtest(1, 6).pvalue = 0.21875)
    assert f.mcnemar_exact_p(1, 5, 8) == 0.21875
    assert f.mcnemar_exact_p(0, 0, 3) == 1.0  # pairs, none discordant: no evidence of a change
    assert f.mcnemar_exact_p(0, 0, 0) is None  # no pair: nothing to test, never a number by default
    assert f.mcnemar_exact_p(None, None, None) is None  # a refused comparison


def test_side_pass_at_1_reads_the_tokens():
    assert f.baseline_pass_at_1(paired("1:1:1:0:case=a 1:0:1:1:case=b 1:1:1:1:family=f")) == pytest.approx(2 / 3)
    assert f.candidate_pass_at_1(paired("1:1:1:0:case=a 1:0:1:1:case=b 1:1:1:1:family=f")) == pytest.approx(2 / 3)
    assert f.baseline_pass_at_1(paired("  ")) is None


def test_sorted_parts_gives_one_order_whatever_order_the_engine_grouped_in():
    from kg.finishers import sorted_parts
    assert sorted_parts("b: no loaded shape; a: no loaded shape") == "a: no loaded shape; b: no loaded shape"
    assert sorted_parts("a: x; b: y") == sorted_parts("b: y; a: x")
    assert sorted_parts(None) is None
