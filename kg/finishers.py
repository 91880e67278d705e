"""Finishers: the arithmetic SPARQL 1.1 cannot do (binomial coefficients, square roots) or that
engines do differently (decimal division), applied to query rows client-side so that every
engine's rows end in the same numbers.

A query names them in its header, e.g. `derive: {pass_at_k: mean_pass_at_k(case_counts, k)}`;
each finisher takes column values (or parameters) and returns one value, or None when the
metric cannot be computed — never 0 by default. A column a query packs per case into a
GROUP_CONCAT arrives decoded, as a list of typed tuples (the header's `tokens`, kg/catalogue/model.py)."""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Callable

from .status import status_kind

Z95 = 1.959963984540054  # the 0.975 quantile of the standard normal

FINISHERS: dict[str, Callable] = {}


def finisher(fn):
    FINISHERS[fn.__name__] = fn
    return fn


def _pairs(case_counts) -> list[tuple[int, int]]:
    """[(n, c), …]: one pair per case, the query's packed column decoded by the catalogue (its
    `tokens` header: case_counts: [integer, integer])."""
    return [(int(n), int(c)) for n, c in case_counts or []]


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
def sorted_parts(text):
    """"a; b; …" as a GROUP_CONCAT joined them, in whatever order the engine grouped its rows (the
    order data were written in, on Oxigraph) → the same parts sorted, so every store and every
    loading order say the same; None stays None."""
    if text is None:
        return None
    return "; ".join(sorted(str(text).split("; ")))


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


def _around(value: float, low: float, high: float, floor: float = 0.0, ceiling: float = 1.0):
    """An interval's bounds clipped to [floor, ceiling] and to the side of the value they bound.
    The true bounds are always on their side, but computed in floating point a bound can land a
    hair on the wrong one: Wilson's upper bound for 98 of 98 comes out 0.9999999999999998, below
    pass@1 = 1.0, which a chart reads as a negative error bar. The value is the one the query shows
    (computed exactly, then rounded once), so a bound never crosses what is printed beside it."""
    return min(max(low, floor), value), max(min(high, ceiling), value)


def _wilson(successes, trials):
    """Wilson score interval at 95% (Wilson 1927), for a binomial proportion; bounds clipped to
    [0, 1] and to the side of successes/trials (ratio's value) they bound."""
    if successes is None or not trials:
        return None, None
    n, p = int(trials), int(successes) / int(trials)
    centre = p + Z95 ** 2 / (2 * n)
    spread = Z95 * math.sqrt(p * (1 - p) / n + Z95 ** 2 / (4 * n * n))
    denom = 1 + Z95 ** 2 / n
    value = float(Fraction(int(successes), int(trials)))  # what ratio() shows as the point estimate
    return _around(value, (centre - spread) / denom, (centre + spread) / denom)


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
    standard deviation over the m cases, clipped to [0, 1] and to the side of the exact mean they
    bound; undefined for fewer than two cases.
    Cases are the unit of sampling (trials within a case are not independent draws)."""
    m = len(values)
    if m < 2:
        return None, None
    # mean and variance exactly (the same mean mean_pass_at_k and mean_pass_hat_k show; cases all
    # alike give s = 0, not a float residue), one rounding in the square root
    exact = sum(values) / m
    variance = sum((v - exact) ** 2 for v in values) / (m - 1)
    mean, half = float(exact), Z95 * math.sqrt(variance) / math.sqrt(m)
    return _around(mean, mean - half, mean + half)


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


# ── paired comparisons of two variants (variant-comparison) ──
def _case_pairs(case_pairs) -> list[tuple[Fraction, str]]:
    """[(nb, cb, nc, cc, cluster), …] (one tuple per paired case, decoded by the catalogue from the
    query's `tokens: {case_pairs: [integer, integer, integer, integer, string]}`) → [(candidate pass
    rate − baseline pass rate, cluster), …], sorted so that the order the engine concatenated the
    tokens in never matters."""
    return sorted((Fraction(cc, nc) - Fraction(cb, nb), cluster) for nb, cb, nc, cc, cluster in case_pairs or [])


def _mean_difference(pairs) -> Fraction | None:
    return sum(d for d, _ in pairs) / len(pairs) if pairs else None


def _cluster_variance(pairs, clustered: bool) -> Fraction | None:
    """Variance of the mean difference, cluster-robust (Liang and Zeger 1986) with the small-sample
    factor G/(G−1): G/(G−1) · Σ_g (Σ_{i∈g} (d_i − d̄))² / m², over m paired cases in G clusters.
    Unclustered, every case is its own cluster and this is s²/m, the usual paired variance.
    Undefined below two clusters."""
    mean = _mean_difference(pairs)
    if mean is None:
        return None
    sums: dict[str, Fraction] = {}
    for n, (d, cluster) in enumerate(pairs):
        key = cluster if clustered else str(n)
        sums[key] = sums.get(key, Fraction(0)) + (d - mean)
    g, m = len(sums), len(pairs)
    if g < 2:
        return None
    return Fraction(g, g - 1) * sum(e * e for e in sums.values()) / (m * m)


def _paired_interval(case_pairs):
    pairs = _case_pairs(case_pairs)
    variance = _cluster_variance(pairs, clustered=True)
    if variance is None:
        return None, None
    mean, half = float(_mean_difference(pairs)), Z95 * math.sqrt(variance)
    return _around(mean, mean - half, mean + half, -1.0, 1.0)


@finisher
def paired_mean_difference(case_pairs):
    """Mean over paired cases of (candidate's per-case pass rate − baseline's)."""
    mean = _mean_difference(_case_pairs(case_pairs))
    return None if mean is None else float(mean)


@finisher
def paired_standard_error(case_pairs):
    """Standard error of the mean difference, clustered by the token's cluster (the case family;
    a case of no family is a cluster of its own)."""
    variance = _cluster_variance(_case_pairs(case_pairs), clustered=True)
    return None if variance is None else math.sqrt(variance)


@finisher
def paired_standard_error_unclustered(case_pairs):
    """The same with every case its own cluster: s/√m over the m per-case differences."""
    variance = _cluster_variance(_case_pairs(case_pairs), clustered=False)
    return None if variance is None else math.sqrt(variance)


@finisher
def paired_interval_low(case_pairs):
    """Lower bound of the normal 95% interval, mean − 1.96·SE (clustered), clipped to [−1, 1]."""
    return _paired_interval(case_pairs)[0]


@finisher
def paired_interval_high(case_pairs):
    return _paired_interval(case_pairs)[1]


@finisher
def sorted_words(text):
    """A GROUP_CONCAT of words as one order-independent list: "b a b" → "a, b"; None when empty."""
    words = sorted(set(str(text or "").split()))
    return ", ".join(words) if words else None


@finisher
def gain(status, mean_difference):
    """The mean difference read as a lift: only for a comparison that was computed and is not
    confounded."""
    return mean_difference if status_kind(status) == "compared" else None


@finisher
def gain_check(status, mean_difference, interval_low, minimum_gain):
    """The gain check (Cubby's GainCheck): the mean difference reaches the plan's minimum gain
    and the 95% interval lies above 0. None when there is nothing to check (refused,
    confounded, no paired case)."""
    if status_kind(status) != "compared" or mean_difference is None:
        return None
    return interval_low is not None and interval_low > 0 and mean_difference >= float(minimum_gain or 0)


@finisher
def gate(status, mean_difference, interval_low, minimum_gain, new_wrong_answers, maximum_new_wrong_answers,
         bound_by_name_only=None):
    """accept only with a gain (gain_check) and no more new wrong answers than the plan allows
    (0: Cubby's NoNewWrongAnswerCheck); otherwise reject, saying which check failed. A refused
    or confounded comparison, or one without a paired case, gets no verdict; so does one with a
    trial bound to its variant by system name only (its run states no component digest): a gate
    needs the variant pinned by content, not by name (the EvoOntology report: a task "still names
    the same version, not an immutable content digest"), so it names the fix instead."""
    if status is None or status_kind(status) == "refused":
        return "refused"
    if status_kind(status) != "compared":
        return f"no verdict: {status}"
    if mean_difference is None:
        return "no verdict: no paired case"
    by_name = int(bound_by_name_only or 0)
    if by_name:
        return (f"no verdict: {by_name} trial{'s' if by_name != 1 else ''} bound to the variant by system name only "
                "(fix: pin the variant's digest: state each run's components with their digests)")
    reasons = []
    if interval_low is None:
        reasons.append("gain not established: fewer than two clusters")
    elif mean_difference < float(minimum_gain or 0):
        reasons.append(f"no gain: mean difference {mean_difference:+.3f} below the minimum gain {float(minimum_gain or 0):.3f}")
    elif interval_low <= 0:
        reasons.append(f"gain not established: the 95% interval reaches {interval_low:+.3f}")
    wrong, allowed = int(new_wrong_answers or 0), int(maximum_new_wrong_answers or 0)
    if wrong > allowed:
        reasons.append(f"{wrong} new wrong answer{'s' if wrong != 1 else ''}")
    return "accept" if not reasons else "reject: " + "; ".join(reasons)


# ── comparing two systems case by case (compare) ──
def _side_pass_at_1(pass1_pairs, side: int):
    """pass@1 of one side over the pass@1 pairs, (1, cb, 1, cc, cluster) tuples decoded by the catalogue."""
    if not pass1_pairs:
        return None
    return float(Fraction(sum(t[side] for t in pass1_pairs), len(pass1_pairs)))


@finisher
def baseline_pass_at_1(pass1_pairs):
    return _side_pass_at_1(pass1_pairs, 1)


@finisher
def candidate_pass_at_1(pass1_pairs):
    return _side_pass_at_1(pass1_pairs, 3)


@finisher
def mcnemar_exact_p(regressed, improved, pairs):
    """Exact two-sided McNemar test on the discordant pairs b (passed → failed) and c (failed →
    passed): under no change each discordant pair goes either way with chance 1/2, so
    p = min(1, 2 · P[X ≤ min(b, c)]) with X ~ Binomial(b + c, 1/2), summed exactly. With no
    discordant pair there is no evidence of a change: p = 1 (statsmodels' convention). None when
    there is nothing to test: no pair, or a refused row."""
    if regressed is None or improved is None or not pairs:
        return None
    b, c = int(regressed), int(improved)
    n = b + c
    if n == 0:
        return 1.0
    tail = Fraction(sum(math.comb(n, i) for i in range(min(b, c) + 1)), 2 ** n)
    return float(min(Fraction(1), 2 * tail))


def _values(values) -> list[Fraction]:
    """"v v …" (one value per run, as run-measurements GROUP_CONCATs them) → sorted values."""
    return sorted(Fraction(token) for token in str(values or "").split())


def _exact(value: Fraction) -> int | float:
    """A whole number as an int (a count of tokens stays a count), any other as a float."""
    return int(value) if value.denominator == 1 else float(value)


@finisher
def median(values):
    """The middle value, or the mean of the two middle ones; None when there is no value."""
    xs = _values(values)
    if not xs:
        return None
    middle = len(xs) // 2
    return _exact(xs[middle] if len(xs) % 2 else (xs[middle - 1] + xs[middle]) / 2)


@finisher
def total(values):
    """The exact sum of the values; None when there is none (an empty sum is not a measured 0)."""
    xs = _values(values)
    return _exact(sum(xs)) if xs else None


@finisher
def mean(values):
    """The mean of the values; None when there is none."""
    xs = _values(values)
    return _exact(sum(xs) / len(xs)) if xs else None


@finisher
def p90(values):
    """The 90th percentile by nearest rank: the ceil(0.9 n)-th smallest value, one that was
    measured (never interpolated); None when there is no value."""
    xs = _values(values)
    if not xs:
        return None
    return _exact(xs[math.ceil(Fraction(9, 10) * len(xs)) - 1])


@finisher
def lowest_rate(check_counts):
    """The lowest passed/counted among "passed:counted" tokens whose counted > 0; None when none is."""
    rates = [Fraction(int(p), int(c)) for p, c in (token.split(":") for token in str(check_counts or "").split())
             if int(c) > 0]
    return float(min(rates)) if rates else None
