"""The full ensemble's score and decisions against NumPy's ``bias + F.sum(1) >= threshold``."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from engine.errors import InputError
from engine.qwyc import full_decisions
from engine.qwyc._full_ensemble import full_scores

DTYPES = (np.float32, np.float64)


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(DTYPES).flatmap(
        lambda dtype: hnp.arrays(
            dtype,
            hnp.array_shapes(min_dims=2, max_dims=2, min_side=0, max_side=9),
            elements=st.floats(-8, 8, width=32 if dtype == np.float32 else 64),
        )
    ),
    st.floats(-4, 4),
    st.floats(-6, 6),
)
def test_decisions_and_scores_are_numpys(f, bias, threshold):
    assert np.array_equal(full_scores(f, bias), bias + f.sum(1))
    decisions = full_decisions(f, bias, threshold)
    assert decisions.dtype == bool and decisions.shape == (f.shape[0],)
    assert np.array_equal(decisions, bias + f.sum(1) >= threshold)


@settings(max_examples=100, deadline=None)
@given(
    st.sampled_from(DTYPES).flatmap(
        lambda dtype: hnp.arrays(
            dtype, st.tuples(st.integers(1, 9), st.integers(1, 6)), elements=st.integers(-4, 4).map(lambda k: k / 4)
        )
    ),  # quarters: sums are exact, so scores tie
    st.integers(-2, 2).map(lambda k: k / 4),
    st.data(),
)
def test_ties_at_the_threshold(f, bias, data):
    scores = bias + f.sum(1)
    threshold = data.draw(st.sampled_from(scores.tolist()))  # the score of one of the rows
    decisions = full_decisions(f, bias, threshold)
    assert np.array_equal(decisions, scores >= threshold)
    assert decisions[scores == threshold].all()


@pytest.mark.parametrize("dtype", DTYPES)
def test_a_score_equal_to_the_threshold_is_positive(dtype):
    f = np.array([[0.25, 0.5], [0.25, 0.25], [0.5, 0.5]], dtype=dtype)  # exact in both precisions
    assert full_decisions(f, 0.25, 1.0).tolist() == [True, False, True]
    assert full_decisions(f, 0.0, 0.75).tolist() == [True, False, True]
    assert full_decisions(f, -0.25, 0.75).tolist() == [False, False, True]


@pytest.mark.parametrize("dtype", DTYPES)
def test_the_sum_keeps_the_contributions_precision(dtype):
    rng = np.random.default_rng(3)
    f = rng.normal(size=(500, 40)).astype(dtype)
    scores = full_scores(f, 0.1)
    assert scores.dtype == dtype
    assert np.array_equal(scores, 0.1 + f.sum(1))
    threshold = float(np.median(scores))  # ties at the threshold among the rows
    assert np.array_equal(full_decisions(f, 0.1, threshold), 0.1 + f.sum(1) >= threshold)


@pytest.mark.parametrize("shape", [(0, 5), (0, 0), (3, 0)])
def test_empty_matrices(shape):
    f = np.zeros(shape)
    assert full_decisions(f, 0.5, 0.0).tolist() == [True] * shape[0]  # no model: the bias decides
    assert full_scores(f, 0.5).shape == (shape[0],)


def test_lists_are_read_as_matrices():
    assert full_decisions([[1, -2], [3, 4]], 0.0, 0.0).tolist() == [False, True]


@pytest.mark.parametrize(
    "f, bias, threshold, words",
    [
        (np.zeros(4), 0.0, 0.0, "(rows x models) matrix"),
        (np.zeros((2, 3, 4)), 0.0, 0.0, "got shape (2, 3, 4)"),
        (np.array([["a", "b"]]), 0.0, 0.0, "matrix of numbers"),
        (np.zeros((2, 2), dtype=bool), 0.0, 0.0, "matrix of numbers"),
        (np.zeros((2, 2)), np.zeros(2), 0.0, "the bias must be one number"),
        (np.zeros((2, 2)), 0.0, np.zeros(2), "the threshold must be one number"),
        (np.zeros((2, 2)), 0.0, "0.5", "the threshold must be one number"),
    ],
)
def test_wrong_shapes_are_refused(f, bias, threshold, words):
    with pytest.raises(InputError, match=words.replace("(", r"\(").replace(")", r"\)")):
        full_decisions(f, bias, threshold)
