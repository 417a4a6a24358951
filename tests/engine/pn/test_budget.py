"""Operating points under a review budget, against a scan of every threshold."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import InputError
from engine.pn import pn_curve
from engine.pn._budget import max_flagged_point


def brute_force(scores, labels, weights, capacity):
    """(tp, -fp, threshold) of the best threshold among all distinct scores (and +inf)."""
    best = (0.0, -0.0, math.inf)
    for t in np.unique(scores):
        flag = scores >= t
        tp, fp = float(weights[flag] @ labels[flag]), float(weights[flag] @ (1 - labels[flag]))
        if tp + fp <= capacity + 1e-9 and (tp, -fp) > best[:2]:
            best = (tp, -fp, t)
    return best


@given(
    st.lists(st.tuples(st.integers(0, 8), st.integers(0, 1), st.integers(1, 3)), min_size=1, max_size=25),
    st.integers(0, 40),
)
@settings(max_examples=150, deadline=None)
def test_matches_a_scan_of_every_threshold_with_ties_and_weights(rows, capacity):
    s = np.array([r[0] / 8 for r in rows])
    y = np.array([r[1] for r in rows])
    w = np.array([r[2] for r in rows], dtype=float)
    p = max_flagged_point(s, y, w, capacity=capacity)
    tp, neg_fp, t = brute_force(s, y, w, capacity)
    assert (p.tp, p.fp) == (tp, -neg_fp)
    assert p.threshold == t and p.flagged <= capacity


def test_nothing_fits_and_everything_fits():
    s, y = np.array([0.9, 0.8, 0.1]), np.array([1, 0, 1])
    assert max_flagged_point(s, y, capacity=0).threshold == math.inf
    p = max_flagged_point(s, y, capacity=100)
    assert (p.threshold, p.tp, p.fp, p.flagged) == (0.1, 2.0, 1.0, 3.0)
    assert max_flagged_point(curve=pn_curve(s, y), capacity=2).as_dict()["threshold"] == 0.9  # same TP as 0.8, no FP


@pytest.mark.parametrize("bad", [-1, float("nan"), "many", float("inf")])
def test_bad_capacity(bad):
    with pytest.raises(InputError, match="capacity"):
        max_flagged_point([0.1], [1], capacity=bad)
