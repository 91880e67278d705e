"""Finishers: the arithmetic SPARQL 1.1 cannot do (binomial coefficients, square roots) or that
engines do differently (decimal division), applied to query rows client-side so that every
engine's rows end in the same numbers.

A query names them in its header, e.g. `derive: {pass_at_k: mean_pass_at_k(case_counts, k)}`;
each finisher takes column values (or parameters) and returns one value, or None when the
metric cannot be computed — never 0 by default."""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Callable

Z95 = 1.959963984540054  # the 0.975 quantile of the standard normal

FINISHERS: dict[str, Callable] = {}


def finisher(fn):
    FINISHERS[fn.__name__] = fn
    return fn


def _pairs(case_counts) -> list[tuple[int, int]]:
    """"n:c n:c …" (one pair per case, as the queries GROUP_CONCAT them) → [(n, c), …]."""
    if not case_counts:
        return []
    pairs = []
    for token in str(case_counts).split():
        n, c = token.split(":")
        pairs.append((int(n), int(c)))
    return pairs


def pass_at_k(n: int, c: int, k: int) -> Fraction:
    """Chen et al. (2021), unbiased: 1 − C(n−c, k) / C(n, k); defined for n ≥ k."""
    if not 0 <= c <= n or k < 1 or n < k:
        raise ValueError(f"pass@k needs 0 <= c <= n and 1 <= k <= n, got n={n} c={c} k={k}")
    return 1 - Fraction(math.comb(n - c, k), math.comb(n, k))


def pass_hat_k(n: int, c: int, k: int) -> Fraction:
    """τ-bench's pass^k: C(c, k) / C(n, k), the chance that k trials drawn without replacement all pass."""
    if not 0 <= c <= n or k < 1 or n < k:
        raise ValueError(f"pass^k needs 0 <= c <= n and 1 <= k <= n, got n={n} c={c} k={k}")
    return Fraction(math.comb(c, k), math.comb(n, k))


def _per_case(case_counts, k, estimator) -> list[Fraction]:
    k = int(k)
    return [estimator(n, c, k) for n, c in _pairs(case_counts) if n >= k]


@finisher
def ratio(numerator, denominator):
    """numerator / denominator, or None when the denominator is 0 or missing."""
    if numerator is None or not denominator:
        return None
    return float(Fraction(str(numerator)) / Fraction(str(denominator)))


@finisher
def wilson_low(successes, trials):
    return _wilson(successes, trials)[0]


@finisher
def wilson_high(successes, trials):
    return _wilson(successes, trials)[1]


def _wilson(successes, trials):
    """Wilson score interval at 95% (Wilson 1927), for a binomial proportion."""
    if successes is None or not trials:
        return None, None
    n, p = int(trials), int(successes) / int(trials)
    centre = p + Z95 ** 2 / (2 * n)
    spread = Z95 * math.sqrt(p * (1 - p) / n + Z95 ** 2 / (4 * n * n))
    denom = 1 + Z95 ** 2 / n
    return max(0.0, (centre - spread) / denom), min(1.0, (centre + spread) / denom)


@finisher
def mean_pass_at_k(case_counts, k):
    values = _per_case(case_counts, k, pass_at_k)
    return float(sum(values) / len(values)) if values else None


@finisher
def mean_pass_hat_k(case_counts, k):
    values = _per_case(case_counts, k, pass_hat_k)
    return float(sum(values) / len(values)) if values else None


def _mean_interval(values: list[Fraction]):
    """Normal interval for a mean of per-case values in [0, 1]: mean ± z·s/√m with s the sample
    standard deviation over the m cases, clipped to [0, 1]; undefined for fewer than two cases.
    Cases are the unit of sampling (trials within a case are not independent draws)."""
    m = len(values)
    if m < 2:
        return None, None
    xs = [float(v) for v in values]
    mean = sum(xs) / m
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (m - 1))
    half = Z95 * sd / math.sqrt(m)
    return max(0.0, mean - half), min(1.0, mean + half)


@finisher
def pass_at_k_low(case_counts, k):
    return _mean_interval(_per_case(case_counts, k, pass_at_k))[0]


@finisher
def pass_at_k_high(case_counts, k):
    return _mean_interval(_per_case(case_counts, k, pass_at_k))[1]


@finisher
def pass_hat_k_low(case_counts, k):
    return _mean_interval(_per_case(case_counts, k, pass_hat_k))[0]


@finisher
def pass_hat_k_high(case_counts, k):
    return _mean_interval(_per_case(case_counts, k, pass_hat_k))[1]


@finisher
def cohens_kappa(both_pass, a_pass_b_fail, a_fail_b_pass, both_fail):
    """Cohen's kappa for two raters and two categories; None when chance agreement is total
    (every verdict of both raters in one category), where kappa is undefined."""
    a, b, c, d = (int(x or 0) for x in (both_pass, a_pass_b_fail, a_fail_b_pass, both_fail))
    n = a + b + c + d
    if n == 0:
        return None
    observed = Fraction(a + d, n)
    expected = Fraction((a + b) * (a + c) + (c + d) * (b + d), n * n)
    if expected == 1:
        return None
    return float((observed - expected) / (1 - expected))


@finisher
def agreement(both_pass, both_fail, shared):
    if not shared:
        return None
    return float(Fraction(int(both_pass or 0) + int(both_fail or 0), int(shared)))
