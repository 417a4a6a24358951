"""engine/qwyc/summary.py: summarise_policy is the composition of the engine's own measures, figures and file."""

import json

import numpy as np
import plotly.io as pio
import pytest

from engine.qwyc import FittedPolicy, PolicySummary, fit_qwyc, full_decisions, policy_json, summarise_policy
from engine.qwyc.display import models_histogram_figure, thresholds_figure


def contributions(seed: int, n: int, t: int):
    rng = np.random.default_rng(seed)
    f = rng.normal(0, 1, (n, t)) / np.sqrt(t)
    y = (f.sum(1) + rng.normal(0, 0.5, n) > 0).astype(int)
    return f, y


@pytest.mark.parametrize(
    "seed, alpha, neg_only, bias", [(0, 0.01, False, 0.0), (1, 0.05, True, -0.3), (2, 0.0, False, 0.2)]
)
def test_the_summary_is_each_measure_figure_and_file_on_its_own(seed, alpha, neg_only, bias):
    f, y = contributions(seed, 500, 15)
    f_fit, f_test, y_fit, y_test = f[:300], f[300:], y[:300], y[300:]
    policy = fit_qwyc(f_fit, alpha=alpha, neg_only=neg_only, bias=bias)
    s = summarise_policy(
        policy,
        f_fit,
        f_test,
        labels_fit=y_fit,
        labels_test=y_test,
        fitted_with={"neg_only": neg_only, "budget": "greedy"},
    )
    assert isinstance(s, PolicySummary) and s.policy is policy
    assert s.fit == policy.evaluate(f_fit, y_fit)
    assert s.test == policy.evaluate(f_test, y_test)
    np.testing.assert_array_equal(s.n_evaluated, policy.predict(f_test)[1])
    assert pio.to_json(s.histogram) == pio.to_json(models_histogram_figure(policy.predict(f_test)[1], 15))
    assert pio.to_json(s.thresholds) == pio.to_json(thresholds_figure(policy))
    expected = policy_json(FittedPolicy(policy, {**s.fit, "neg_only": neg_only, "budget": "greedy", "test": s.test}))
    assert s.policy_file == expected.encode()
    assert json.loads(s.policy_file)["fit"]["test"] == json.loads(json.dumps(s.test))
    # the full decisions a caller passes (once per ensemble) give the same summary
    given = summarise_policy(
        policy,
        f_fit,
        f_test,
        labels_fit=y_fit,
        labels_test=y_test,
        full_fit=full_decisions(f_fit, bias, policy.threshold),
        full_test=full_decisions(f_test, bias, policy.threshold),
        fitted_with={"neg_only": neg_only, "budget": "greedy"},
    )
    assert given.fit == s.fit and given.test == s.test and given.policy_file == s.policy_file


def test_without_labels_there_is_no_accuracy():
    f, _ = contributions(3, 200, 8)
    s = summarise_policy(fit_qwyc(f[:120], alpha=0.02), f[:120], f[120:])
    assert "accuracy" not in s.fit and "accuracy" not in s.test
    assert json.loads(s.policy_file)["fit"]["test"]["disagreement_pct"] == pytest.approx(s.test["disagreement_pct"])
