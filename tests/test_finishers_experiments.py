"""The finishers of paired variant comparisons, against numbers computed by hand and by an
independent method (Python's statistics module; the cluster-robust sandwich written with numpy
matrices)."""
import math
import random
import statistics

import numpy as np
import pytest

from kg.finishers import (FINISHERS, Z95, gain, gain_check, gate, paired_interval_high, paired_interval_low,
                          paired_mean_difference, paired_standard_error, paired_standard_error_unclustered,
                          sorted_words)
from kg.catalogue import decode_tokens


def paired(text):
    """"nb:cb:nc:cc:cluster …" as the queries GROUP_CONCAT it, decoded as the catalogue hands it over."""
    return decode_tokens(text, ("integer", "integer", "integer", "integer", "string"))


# nb:cb:nc:cc:cluster, one token per paired case
#   a  3/3 → 0/3, family F   d = −1
#   b  1/3 → 2/3, family F   d = 1/3
#   c  0/2 → 2/2, family G   d = 1
#   d  1/1 → 1/1, no family  d = 0   (its own cluster)
TOKENS = ["3:3:3:0:family=F", "3:1:3:2:family=F", "2:0:2:2:family=G", "1:1:1:1:case=urn%3Atest%3Ad"]
PAIRS = paired(" ".join(TOKENS))
DIFFERENCES = [-1, 1 / 3, 1, 0]
CLUSTERS = ["F", "F", "G", "d"]


def test_every_new_finisher_is_registered():
    for name in ("paired_mean_difference", "paired_standard_error", "paired_standard_error_unclustered",
                 "paired_interval_low", "paired_interval_high", "sorted_words", "gain", "gain_check", "gate"):
        assert name in FINISHERS


def test_mean_difference_by_hand():
    # (−1 + 1/3 + 1 + 0) / 4 = 1/12
    assert paired_mean_difference(PAIRS) == pytest.approx(1 / 12)


def test_unclustered_standard_error_by_hand():
    # deviations −13/12, 1/4, 11/12, −1/12; squares sum to 300/144 = 25/12; s² = 25/36;
    # SE = √(s²/4) = 5/12
    assert paired_standard_error_unclustered(PAIRS) == pytest.approx(5 / 12)


def test_unclustered_standard_error_is_the_paired_t_standard_error():
    assert paired_standard_error_unclustered(PAIRS) == pytest.approx(statistics.stdev(DIFFERENCES) / math.sqrt(4))


def test_clustered_standard_error_by_hand():
    # cluster sums of deviations: F −13/12 + 3/12 = −5/6, G 11/12, d −1/12; squares 25/36 + 121/144 + 1/144
    # = 37/24; V = G/(G−1) · 37/24 / m² = 3/2 · 37/24 / 16 = 37/256; SE = √37 / 16
    assert paired_standard_error(PAIRS) == pytest.approx(math.sqrt(37) / 16)


def sandwich_se(differences, clusters):
    """Cluster-robust SE of the intercept of d = β + u, as (X'X)⁻¹ (Σ_g X_g'u_g u_g'X_g) (X'X)⁻¹ · G/(G−1)."""
    d = np.asarray(differences, dtype=float)
    x = np.ones((len(d), 1))
    bread = np.linalg.inv(x.T @ x)
    u = d - (x @ (bread @ x.T @ d))
    groups = sorted(set(clusters))
    meat = np.zeros((1, 1))
    for g in groups:
        rows = [i for i, c in enumerate(clusters) if c == g]
        score = x[rows].T @ u[rows]
        meat += np.outer(score, score)
    v = bread @ meat @ bread * len(groups) / (len(groups) - 1)
    return float(np.sqrt(v[0, 0]))


def test_clustered_standard_error_matches_the_sandwich_estimator():
    assert paired_standard_error(PAIRS) == pytest.approx(sandwich_se(DIFFERENCES, CLUSTERS))


def test_random_comparisons_match_the_sandwich_estimator():
    rng = random.Random(7)
    for _ in range(25):
        tokens, differences, clusters = [], [], []
        for n in range(rng.randint(3, 30)):
            nb, nc = rng.randint(1, 5), rng.randint(1, 5)
            cb, cc = rng.randint(0, nb), rng.randint(0, nc)
            family = rng.choice(["a", "b", "c", "d", None])
            cluster = f"family={family}" if family else f"case=c{n}"
            tokens.append(f"{nb}:{cb}:{nc}:{cc}:{cluster}")
            differences.append(cc / nc - cb / nb)
            clusters.append(cluster)
        if len(set(clusters)) < 2:
            continue
        text = paired(" ".join(tokens))
        assert paired_mean_difference(text) == pytest.approx(statistics.mean(differences))
        assert paired_standard_error(text) == pytest.approx(sandwich_se(differences, clusters))
        assert paired_standard_error_unclustered(text) == pytest.approx(
            statistics.stdev(differences) / math.sqrt(len(differences)))


def test_without_families_clustered_equals_unclustered():
    text = paired("3:3:3:0:case=a 3:1:3:2:case=b 2:0:2:2:case=c 1:1:1:1:case=d")
    assert paired_standard_error(text) == pytest.approx(paired_standard_error_unclustered(text))
    assert paired_standard_error(text) == pytest.approx(5 / 12)


def test_interval_by_hand():
    half = Z95 * math.sqrt(37) / 16
    assert paired_interval_low(PAIRS) == pytest.approx(1 / 12 - half)
    assert paired_interval_high(PAIRS) == pytest.approx(1 / 12 + half)
    assert paired_interval_low(PAIRS) == pytest.approx(-0.6617914, abs=1e-6)  # 1/12 − 1.959964 · 0.3801727


def test_interval_is_clipped_to_the_possible_differences():
    # two clusters, d = −1 and d = 0 → mean −1/2, SE 1/2, mean − 1.96·SE < −1
    text = paired("1:1:1:0:family=x 1:1:1:1:family=y")
    assert paired_interval_low(text) == -1.0
    assert paired_interval_high(text) == pytest.approx(-0.5 + Z95 * 0.5)


def test_order_of_the_tokens_does_not_matter():
    for _ in range(10):
        shuffled = TOKENS[:]
        random.shuffle(shuffled)
        text = paired("  ".join(shuffled))  # GROUP_CONCAT leaves extra blanks where a case was not paired
        for fn in (paired_mean_difference, paired_standard_error, paired_standard_error_unclustered,
                   paired_interval_low, paired_interval_high):
            assert fn(text) == fn(PAIRS)


def test_undefined_below_two_clusters():
    one_family = paired("3:3:3:0:family=F 3:1:3:2:family=F")
    assert paired_mean_difference(one_family) == pytest.approx(-1 / 3)
    assert paired_standard_error(one_family) is None
    assert paired_interval_low(one_family) is None and paired_interval_high(one_family) is None
    assert paired_standard_error_unclustered(one_family) is not None  # two cases, each its own cluster
    for nothing in (None, [], paired("   ")):  # unbound, empty, blanks only
        assert paired_mean_difference(nothing) is None
        assert paired_standard_error(nothing) is None
        assert paired_standard_error_unclustered(nothing) is None


def test_sorted_words():
    assert sorted_words("prompt model prompt") == "model, prompt"
    assert sorted_words("") is None and sorted_words(None) is None


def test_gain_only_for_a_compared_row():
    assert gain("compared", 0.25) == 0.25
    for status in ("confounded", "unregistered", "refused: another digest"):
        assert gain(status, 0.25) is None


def test_gain_check():
    assert gain_check("compared", 0.1, 0.02, 0.05) is True
    assert gain_check("compared", 0.04, 0.01, 0.05) is False  # below the minimum gain
    assert gain_check("compared", 0.1, 0.0, 0.0) is False  # the interval reaches 0
    assert gain_check("compared", 0.1, None, 0.0) is False  # fewer than two clusters
    assert gain_check("confounded", 0.1, 0.05, 0.0) is None
    assert gain_check("compared", None, None, 0.0) is None


def test_gate():
    assert gate("compared", 0.1, 0.02, 0.05, 0, 0) == "accept"
    assert gate("compared", 0.1, 0.02, 0.05, 1, 0) == "reject: 1 new wrong answer"
    assert gate("compared", 0.03, -0.07, 0.05, 2, 0) == \
        "reject: no gain: mean difference +0.030 below the minimum gain 0.050; 2 new wrong answers"
    assert gate("compared", 0.09, -0.04, 0.05, 0, 0) == "reject: gain not established: the 95% interval reaches -0.040"
    assert gate("compared", -1.0, None, 0.0, 1, 0) == \
        "reject: gain not established: fewer than two clusters; 1 new wrong answer"
    assert gate("compared", None, None, 0.0, 0, 0) == "no verdict: no paired case"
    assert gate("confounded", 0.5, 0.4, 0.0, 0, 0) == "no verdict: confounded"
    assert gate("unregistered", 0.5, 0.4, None, 0, None) == "no verdict: unregistered"
    assert gate("refused: the plan pins another digest", None, None, 0.0, None, 0) == "refused"


def test_gate_needs_content_not_names():
    """Issue 41: a trial bound to its variant by system name only (its run states no component digest)
    leaves the gate without a verdict, naming the fix, even where the numbers would accept."""
    assert gate("compared", 0.1, 0.02, 0.05, 0, 0, 0) == "accept"
    verdict = gate("compared", 0.1, 0.02, 0.05, 0, 0, 4)
    assert verdict.startswith("no verdict: 4 trials bound to the variant by system name only")
    assert "fix: pin the variant's digest" in verdict
    assert gate("compared", 0.1, 0.02, 0.05, 0, 0, 1).startswith("no verdict: 1 trial bound")
    assert gate("confounded", 0.5, 0.4, 0.0, 0, 0, 3) == "no verdict: confounded"
