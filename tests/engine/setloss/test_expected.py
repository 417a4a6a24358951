"""Set losses and expected-loss-optimal top-k decisions against brute-force enumeration."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import InputError
from engine.setloss import (
    LOSS_SPELLINGS,
    LOSSES,
    expected_losses,
    get_loss,
    linear_fractional,
    optimal_class_set,
    optimal_decision,
)
from engine.setloss._decisions import monte_carlo_loss
from engine.setloss._expected import expected_losses_reference, poisson_binomial
from engine.setloss._losses import fbeta

# every registered loss (a parameter at two values; the custom metric has its own tests below)
NAMES = [
    name
    for c in LOSSES.values()
    if not c.coefficients
    for name in ([f"{c.key}:2", f"{c.key}:0.5"] if c.parameter else [c.key])
]
#: the losses with a compiled pair kernel (a metric of TPR, TNR and precision)
COMPILED = [c.key for c in LOSSES.values() if c.rates is not None]


def brute_force(eta, loss):
    """E[L(top-k, Y)] for every k by enumerating all 2^n label vectors."""
    loss = get_loss(loss)
    e = np.sort(np.asarray(eta, float))[::-1]
    n = e.size
    ys = np.array(list(itertools.product([0, 1], repeat=n)), dtype=int).reshape(-1, n)
    prob = np.prod(np.where(ys == 1, e, 1 - e), axis=1)
    out = []
    for k in range(n + 1):
        chosen = np.arange(n) < k
        tp = ys[:, chosen].sum(1)
        fn = ys[:, ~chosen].sum(1)
        out.append(prob @ loss(tp, k - tp, fn, n - k - fn))
    return np.array(out)


def direct_metric(name, tp, fp, fn, tn):
    """Textbook formulas with the 0-denominator convention, one scalar at a time."""

    def r(a, b):
        return 1.0 if b == 0 else a / b

    tpr, tnr, prec = r(tp, tp + fn), r(tn, tn + fp), r(tp, tp + fp)
    if name.startswith("f"):
        beta = 1.0 if name == "f1" else float(name.split(":")[1])
        return r((1 + beta**2) * tp, (1 + beta**2) * tp + beta**2 * fn + fp)
    return {
        "jaccard": r(tp, tp + fp + fn),
        "am": (tpr + tnr) / 2,
        "gmean": (tpr * tnr) ** 0.5,
        "hmean": 0.0 if tpr + tnr == 0 else 2 * tpr * tnr / (tpr + tnr),
        "gtppr": (tpr * prec) ** 0.5,
        "auc": 1 - r(fp * fn, (tp + fn) * (fp + tn)) if (tp + fn) * (fp + tn) else 1.0,
    }[name]


@pytest.mark.parametrize("name", NAMES)
def test_loss_formulas(name):
    loss = get_loss(name)
    for tp, fp, fn, tn in itertools.product(range(3), repeat=4):
        assert loss(tp, fp, fn, tn) == pytest.approx(1 - direct_metric(name, tp, fp, fn, tn), abs=1e-15)
    assert loss.formula and loss.reference


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("method", ["auto", "generic", "reference"])
def test_expected_losses_equal_brute_force(name, method):
    rng = np.random.default_rng(NAMES.index(name))
    for n in (1, 2, 5, 9, 12):
        eta = rng.random(n)
        np.testing.assert_allclose(
            expected_losses(eta, name, method=method), brute_force(eta, name), atol=1e-12, rtol=0
        )


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.sampled_from([0.0, 1.0, 0.5, 0.25, 0.9, 0.01, 0.3]) | st.floats(0, 1), min_size=1, max_size=10),
    st.sampled_from(NAMES),
)
def test_ties_zeros_and_ones(eta, name):
    np.testing.assert_allclose(expected_losses(eta, name), brute_force(eta, name), atol=1e-12, rtol=0)


def test_fractional_path_equals_generic_path_on_large_batches():
    rng = np.random.default_rng(1)
    for n, draw in ((300, rng.random), (500, lambda m: rng.beta(0.3, 3, m)), (400, lambda m: np.full(m, 0.5))):
        eta = draw(n)
        for loss in ("f1", "fbeta:3", "jaccard"):
            np.testing.assert_allclose(
                expected_losses(eta, loss, method="fractional"),
                expected_losses(eta, loss, method="generic"),
                atol=1e-12,
                rtol=0,
            )


def test_linear_fractional_builder_covers_every_path():
    rng = np.random.default_rng(2)
    eta = rng.random(10)
    cases = {
        "precision (denominator k)": ((0, 1, 0, 0, 0), (0, 1, 1, 0, 0)),
        "recall (denominator S)": ((0, 1, 0, 0, 0), (0, 1, 0, 1, 0)),
        "accuracy (constant)": ((0, 1, 0, 0, 1), (1e-9, 1, 1, 1, 1)),
        "negative predictive value (denominator in S2)": ((0, 0, 0, 0, 1), (0, 0, 0, 1, 1)),
        "jaccard rebuilt": ((0, 1, 0, 0, 0), (0, 1, 1, 1, 0)),
        "mixed denominator (generic path)": ((1, 2, 0, 0, 0), (2, 3, 1, 1, 0)),
    }
    for name, (num, den) in cases.items():
        loss = linear_fractional(num, den, name)
        np.testing.assert_allclose(expected_losses(eta, loss), brute_force(eta, loss), atol=1e-12, rtol=0, err_msg=name)
    with pytest.raises(ValueError, match="five finite numbers"):
        linear_fractional((1, 2), (1, 2, 3, 4, 5))
    with pytest.raises(ValueError, match="no O\\(n\\^2\\) path"):
        expected_losses(eta, linear_fractional(*cases["mixed denominator (generic path)"]), method="fractional")


def test_fbeta_and_jaccard_are_linear_fractional():
    assert fbeta(2.0).fractional is not None and get_loss("jaccard").fractional is not None
    assert get_loss("am").fractional is None


def test_early_stop_counterexample():
    eta = [0.96, 0.43, 0.41]
    exact = brute_force(eta, "f1")
    assert int(np.argmin(exact)) == 3
    full = optimal_decision(eta, "f1")
    assert full.k == 3 and full.value == pytest.approx(exact.min(), abs=1e-12)
    early = optimal_decision(eta, "f1", early_stop=True)
    assert early.k == 1 and early.value > full.value


def test_decision_mask_is_in_the_callers_order_and_top_k():
    eta = np.array([0.2, 0.9, 0.05, 0.7, 0.7, 0.01])
    d = optimal_decision(eta, "f1")
    assert d.mask.sum() == d.k
    if 0 < d.k < eta.size:
        assert eta[d.mask].min() >= eta[~d.mask].max()
    np.testing.assert_allclose(d.losses, brute_force(eta, "f1"), atol=1e-12)


@pytest.mark.parametrize("name", ["f1", "jaccard", "am", "gmean"])
def test_optimal_decision_beats_every_subset(name):
    """Theorem 1 checked by exhaustive search over all 2^n decisions (not only top-k)."""
    rng = np.random.default_rng(3)
    loss = get_loss(name)
    for _ in range(5):
        eta = rng.random(7)
        n = eta.size
        ys = np.array(list(itertools.product([0, 1], repeat=n)))
        prob = np.prod(np.where(ys == 1, eta, 1 - eta), axis=1)
        best = min(
            prob @ loss((ys & s).sum(1), ((1 - ys) & s).sum(1), (ys & (1 - s)).sum(1), ((1 - ys) & (1 - s)).sum(1))
            for s in (np.array(bits) for bits in itertools.product([0, 1], repeat=n))
        )
        assert optimal_decision(eta, loss).value == pytest.approx(best, abs=1e-12)


def test_k_zero_and_k_n_edges():
    # nothing can be positive: predicting nothing is perfect (0/0 counts as perfect)
    d = optimal_decision(np.zeros(5), "f1")
    assert d.k == 0 and d.value == pytest.approx(0.0)
    # everything is certainly positive: flag all
    d = optimal_decision(np.ones(5), "jaccard")
    assert d.k == 5 and d.value == pytest.approx(0.0)
    assert expected_losses([], "f1").shape == (1,)


@pytest.mark.parametrize("bad", [[0.2, 1.2], [-0.1, 0.5], [0.3, float("nan")], [[0.1, 0.2]]])
def test_invalid_probabilities_raise(bad):
    with pytest.raises(ValueError, match="probabilities"):
        expected_losses(bad, "f1")


def test_unknown_loss_name():
    with pytest.raises(InputError, match="unknown loss") as caught:
        get_loss("accuracy-ish")
    assert all(spelling in str(caught.value) for spelling in LOSS_SPELLINGS)
    assert get_loss("fbeta:2").name.startswith("F-beta") and "f1" in LOSSES
    assert get_loss(" F=2 ") == get_loss("fbeta:2")
    for bad in ("fbeta:0", "fbeta:1e999"):
        with pytest.raises(InputError, match="finite number > 0"):
            get_loss(bad)


def test_poisson_binomial_and_reference_agree():
    rng = np.random.default_rng(4)
    eta = rng.random(15)
    pmf = poisson_binomial(eta)
    assert pmf.sum() == pytest.approx(1.0)
    assert pmf @ np.arange(16) == pytest.approx(eta.sum())
    np.testing.assert_allclose(expected_losses_reference(eta, "gmean"), expected_losses(eta, "gmean"), atol=1e-12)


def test_monte_carlo_agrees_with_the_exact_expectation():
    rng = np.random.default_rng(5)
    eta = rng.beta(0.5, 2, 200)
    d = optimal_decision(eta, "f1")
    mean, se = monte_carlo_loss(eta, d.mask, "f1", draws=20_000, seed=1)
    assert abs(mean - d.value) < 4 * se


def test_multiclass_top_k_set():
    probs = np.array([0.5, 0.3, 0.15, 0.05])
    d = optimal_class_set(probs, "f1")
    # brute force over the single true class and every subset
    loss = get_loss("f1")
    best = np.inf
    for bits in itertools.product([0, 1], repeat=4):
        s = np.array(bits, bool)
        k = s.sum()
        value = sum(
            p * loss(int(s[j]), k - int(s[j]), 1 - int(s[j]), 4 - k - (1 - int(s[j]))) for j, p in enumerate(probs)
        )
        best = min(best, value)
    assert d.value == pytest.approx(best, abs=1e-12)
    assert list(np.flatnonzero(d.mask)) == list(range(d.k))
    with pytest.raises(ValueError, match="sum to 1"):
        optimal_class_set([0.5, 0.2], "f1")


@pytest.mark.parametrize("name", COMPILED)
def test_compiled_kernel_equals_numpy_path_and_reference(name, monkeypatch):
    from engine.setloss import kernels

    assert kernels.AVAILABLE
    rng = np.random.default_rng(7)
    cases = [
        rng.random(70),
        np.full(50, 0.5),
        rng.random(40) ** 6,
        np.r_[np.ones(4), np.zeros(4), rng.random(12)],
        np.array([0.3]),
    ]
    compiled = [expected_losses(e, name, method="generic") for e in cases]
    monkeypatch.setattr(kernels, "AVAILABLE", False)
    for e, fast in zip(cases, compiled):
        slow = expected_losses(e, name, method="generic")
        np.testing.assert_allclose(fast, slow, rtol=0, atol=1e-14)
        np.testing.assert_allclose(fast, expected_losses_reference(e, name), rtol=0, atol=1e-14)


@given(st.lists(st.floats(0, 1), min_size=1, max_size=9), st.sampled_from(COMPILED))
@settings(max_examples=60, deadline=None)
def test_compiled_kernel_against_enumeration(eta, name):
    np.testing.assert_allclose(
        expected_losses(np.array(eta), name, method="generic"), brute_force(eta, name), rtol=0, atol=1e-12
    )


@pytest.mark.parametrize("name", NAMES)
def test_losses_with_the_same_name_compare_and_hash_equal(name):
    assert get_loss(name) == get_loss(name) and hash(get_loss(name)) == hash(get_loss(name))
    assert get_loss(name) != get_loss("am" if name != "am" else "f1")


def test_loss_menu_builds_every_entry():

    for key in LOSSES:
        assert get_loss(key).name
    assert get_loss("fbeta", beta=2.0) == get_loss("fbeta:2")
    assert get_loss("custom").formula == linear_fractional(*get_loss("custom").fractional.__dict__.values()).formula
    with pytest.raises(InputError, match="unknown loss"):
        get_loss("nope")


# --- custom linear-fractional metrics: only scores in [0, 1] -----------------------------------------------------------


def count_vectors(n_max: int):
    """Every confusion matrix (TP, FP, FN, TN) of a batch of 1..n_max items."""
    for n in range(1, n_max + 1):
        for tp, fp, fn in itertools.product(range(n + 1), repeat=3):
            if tp + fp + fn <= n:
                yield tp, fp, fn, n - tp - fp - fn


def in_unit_interval_everywhere(num, den, n_max: int) -> bool:
    """0 <= numerator <= denominator on every confusion matrix of up to n_max items (0 / 0 counts as 1)."""
    for counts in count_vectors(n_max):
        a = num[0] + sum(c * x for c, x in zip(num[1:], counts))
        b = den[0] + sum(c * x for c, x in zip(den[1:], counts))
        if not 0 <= a <= b:
            return False
    return True


coefficients = st.tuples(*[st.integers(-3, 3)] * 5)


@settings(max_examples=400, deadline=None)
@given(coefficients, coefficients)
def test_a_custom_metric_is_accepted_exactly_when_it_stays_in_0_1(num, den):
    # integer coefficients in [-3, 3]: a metric leaving [0, 1] does so within 8 items (|constant| <= 6, slope >= 1)
    expected = in_unit_interval_everywhere(num, den, 8)
    if not any(den):
        expected = False
    try:
        linear_fractional(num, den, "my metric")
        accepted = True
    except ValueError as exc:
        accepted = False
        assert "my metric" in str(exc) or "non-zero coefficient" in str(exc)
    assert accepted == expected


@settings(max_examples=120, deadline=None)
@given(coefficients, coefficients, st.lists(st.floats(0, 1), min_size=1, max_size=7))
def test_accepted_custom_metrics_have_expected_losses_in_0_1_equal_to_enumeration(num, den, eta):
    try:
        loss = linear_fractional(num, den)
    except ValueError:
        return
    exact = brute_force(eta, loss)
    assert exact.min() >= -1e-12 and exact.max() <= 1 + 1e-12
    for method in ("auto", "generic", "reference"):
        np.testing.assert_allclose(expected_losses(eta, loss, method=method), exact, atol=1e-12, rtol=0)


@pytest.mark.parametrize(
    "num, den, says",
    [
        ((0, 1, 0, 0, 0), (-1, 1, 0, 0, 0), "denominator vanishes for a batch of one item that is a TP"),
        ((1, 0, 0, 0, 0), (0, 1, 1, 0, 0), "denominator vanishes for a batch of one item that is a FN"),
        ((0, 1, 0, 0, 0), (0, 1, 0, -1, 0), "it is 0 / -1 for a batch of one item that is a FN"),
        ((0, 1, 0, 0, 0), (1, 1, 0, -1, 0), "it exceeds 1 as FN grows (the denominator vanishes or turns negative"),
        ((0, 1, 0, 0, 1), (1, 1, 1, 1, 0.5), "it exceeds 1 as TN grows"),
        ((0, 2, 0, 0, 0), (0, 1, 1, 1, 0), "it is 2 / 1 for a batch of one item that is a TP"),
        ((0, 1, -1, 0, 0), (0, 1, 1, 0, 0), "it is -1 / 1 for a batch of one item that is a FP"),
        ((1, 1, -1, 0, 0), (1, 1, 1, 0, 0), "numerator becomes negative as FP grows"),
    ],
)
def test_a_metric_whose_expected_loss_would_leave_0_1_is_refused_with_when(num, den, says):
    with pytest.raises(ValueError) as caught:
        linear_fractional(num, den, "custom metric")
    assert "custom metric" in str(caught.value) and says in str(caught.value)
    # not over-strict: on some batch the metric as written is x / 0 with x != 0, or outside [0, 1]
    parts = [(num[0] + np.dot(num[1:], c), den[0] + np.dot(den[1:], c)) for c in count_vectors(6)]
    assert any((b == 0 and a != 0) or (b != 0 and not 0 <= a / b <= 1) for a, b in parts)
