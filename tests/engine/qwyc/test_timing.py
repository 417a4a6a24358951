"""The timing table: one row per evaluation, speed-ups as ratios of the measured seconds."""

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.ensemble import HistGradientBoostingClassifier

from engine.qwyc import fit_qwyc, time_early_exit
from engine.qwyc._ensembles import from_sklearn
from engine.qwyc._timing import EarlyExitTiming
from engine.qwyc.display import timing_table


def test_rows_and_speed_ups_of_given_timings():
    timing = EarlyExitTiming(
        rows=500,
        full_seconds=0.8,
        early_seconds=0.2,
        reference_seconds=0.3,
        mean_models=12.5,
        decisions_match_policy=True,
    )
    table = timing_table(timing, 100)
    assert list(table["evaluation"]) == [
        "all trees (this engine)",
        "early exit (this engine, compiled: each row stops at its first exit)",
        "scikit-learn decision_function (compiled, all trees)",
    ]
    assert list(table["seconds"]) == [0.8, 0.2, 0.3]
    assert list(table["mean # trees"]) == [100, 12.5, 100]
    speedups = list(table["speed-up of early exit"])
    assert speedups[0] == pytest.approx(4.0) and np.isnan(speedups[1]) and speedups[2] == pytest.approx(1.5)


def test_without_a_reference_there_is_no_reference_row():
    timing = EarlyExitTiming(
        rows=10,
        full_seconds=1.0,
        early_seconds=0.5,
        reference_seconds=None,
        mean_models=3.0,
        decisions_match_policy=True,
    )
    table = timing_table(timing, 7)
    assert len(table) == 2 and "scikit-learn" not in " ".join(table["evaluation"])


def test_a_measured_timing_agrees_with_its_own_speedup():
    x, y = make_classification(800, 6, random_state=1)
    model = HistGradientBoostingClassifier(max_iter=30, max_depth=3, early_stopping=False, random_state=0).fit(x, y)
    ens = from_sklearn(model)
    policy = fit_qwyc(ens.contributions(x), alpha=0.01, bias=ens.bias)
    timing = time_early_exit(ens, policy, x, reference=model.decision_function, repeat=1)
    table = timing_table(timing, ens.n_models)
    assert table["speed-up of early exit"][0] == pytest.approx(timing.speedup)  # the dataclass's own ratio
    assert table["mean # trees"][1] == timing.mean_models == policy.predict(ens.contributions(x))[1].mean()
    compared = table.drop(index=1)  # early exit's own row compares with nothing
    np.testing.assert_allclose(compared["seconds"] / compared["speed-up of early exit"], timing.early_seconds)
