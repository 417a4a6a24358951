"""Policy files: the record written with and without a model file, read back against the model."""

import json

import numpy as np
import pandas as pd
import pytest

from engine.errors import InputError
from engine.qwyc import POLICY_FORMAT, FittedPolicy, fit_policy, fit_qwyc, load_model, policy_json, read_policy

lightgbm = pytest.importorskip("lightgbm")


@pytest.fixture(scope="module")
def model_and_rows():
    rng = np.random.default_rng(5)
    frame = pd.DataFrame(rng.normal(size=(800, 3)), columns=["a", "b", "c"])
    y = (frame["a"] - frame["b"] + rng.normal(size=800) > 0).astype(int)
    text = lightgbm.LGBMClassifier(n_estimators=30, max_depth=3, verbose=-1).fit(frame, y) \
        .booster_.model_to_string().encode()
    return load_model(text, name="m.txt"), frame


def test_a_model_files_policy_reads_back_and_decides_alike(model_and_rows):
    model, frame = model_and_rows
    fitted = fit_policy(model, frame, alpha=0.01)
    record = json.loads(policy_json(fitted, model))
    assert record["format"] == POLICY_FORMAT and record["model"]["sha256"] == model.fingerprint
    assert record["model"]["trees"] == model.n_trees == 30
    policy = read_policy(policy_json(fitted, model), model)
    f = model.ensemble.contributions(model.features(frame))
    for got, expected in zip(policy.predict(f), fitted.policy.predict(f)):
        np.testing.assert_array_equal(got, expected)


def test_a_policy_without_a_model_file_records_the_policy_and_applies_to_no_model(model_and_rows):
    model, _ = model_and_rows
    f = np.random.default_rng(2).normal(size=(300, 8)) * 0.3
    policy = fit_qwyc(f, alpha=0.02, neg_only=True, budget="rationed")
    stats = {"neg_only": True, "budget": "rationed", "fit": policy.evaluate(f)}
    record = json.loads(policy_json(FittedPolicy(policy, stats)))
    assert record["format"] == POLICY_FORMAT and record["model"] is None
    assert record["policy"] == json.loads(json.dumps(policy.as_dict()))  # the engine's own record of the policy
    assert record["fit"]["budget"] == "rationed" and record["fit"]["fit"]["mean_models"] == policy.evaluate(f)[
        "mean_models"]
    assert all(v is None for v in record["policy"]["eps_plus"])  # negative exits only: no positive exit anywhere
    with pytest.raises(InputError):
        read_policy(policy_json(FittedPolicy(policy, stats)), model)
