"""Policy files: written and read back exactly (infinite thresholds included), and every tampered field refused."""

import json
import math

import lightgbm  # noqa: F401 (a declared dependency: fails, never skips)
import numpy as np
import pandas as pd
import pytest

from engine.errors import InputError
from engine.qwyc import (
    EarlyExitPolicy,
    FittedPolicy,
    apply_policy,
    fit_policy,
    fit_qwyc,
    load_model,
    policy_json,
    read_policy,
)
from engine.qwyc._deployment import POLICY_FORMAT
from tests.fuzz.model_corpus import _data, drop_at, lightgbm_text, set_at


@pytest.fixture(scope="module")
def setup():
    model = load_model(lightgbm_text(), name="m.txt")
    frame, y = _data()
    fitted = fit_policy(model, frame, alpha=0.01)
    return model, frame, fitted


@pytest.mark.slow
def test_a_fitted_policy_round_trips_and_keeps_its_promise(setup):
    model, frame, fitted = setup
    policy = read_policy(policy_json(fitted, model), model, name="p.json")
    for field in ("order", "eps_minus", "eps_plus", "costs"):
        np.testing.assert_array_equal(getattr(policy, field), getattr(fitted.policy, field))
    decision, n_eval = apply_policy(policy, model, frame)
    f = model.ensemble.contributions(model.features(frame))
    full = model.ensemble.bias + f.sum(axis=1) >= 0
    assert np.sum(decision != full) <= math.floor(0.01 * len(frame))
    np.testing.assert_array_equal((decision, n_eval), policy.predict(f))


def test_infinite_thresholds_are_written_so_they_read_back(setup):
    """Exit-everyone thresholds (+inf below, -inf above) used to be written as null, i.e. 'never exit'."""
    model, frame, _ = setup
    n = model.n_trees
    eps_minus = np.full(n, -np.inf)
    eps_plus = np.full(n, np.inf)
    eps_minus[2], eps_plus[2] = np.inf, np.inf  # everyone still undecided would exit negative after step 3
    eps_minus[1], eps_plus[1] = -np.inf, -np.inf  # ... but all exit positive after step 2
    eps_minus[0], eps_plus[0] = -0.5, 0.25
    policy = EarlyExitPolicy(
        np.arange(n)[::-1].copy(), eps_minus, eps_plus, 0.0, model.ensemble.bias, np.ones(n), 0.1, "explicit"
    )
    text = policy_json(FittedPolicy(policy, {}), model)
    written = json.loads(text)["policy"]
    assert written["eps_minus"][:3] == [-0.5, None, "all"] and written["eps_plus"][:3] == [0.25, "all", None]
    back = read_policy(text, model)
    np.testing.assert_array_equal(back.eps_minus, eps_minus)
    np.testing.assert_array_equal(back.eps_plus, eps_plus)
    decision, n_eval = apply_policy(back, model, frame)
    assert n_eval.max() <= 2


def tampered(text: str, edit) -> str:
    record = json.loads(text)
    edit(record)
    return json.dumps(record)


CASES = {  # the tampered policies, each with the field its message must name
    "eps_minus above eps_plus": (set_at(["policy", "eps_minus", 0], 5.0), "policy.eps_minus[0]"),
    "duplicate tree": (lambda r: r["policy"]["order"].__setitem__(1, r["policy"]["order"][0]), "policy.order[1]"),
    "tree out of range": (set_at(["policy", "order", 0], 20), "policy.order[0]"),
    "negative tree": (set_at(["policy", "order", 0], -1), "policy.order[0]"),
    "float tree": (set_at(["policy", "order", 0], 1.0), "policy.order[0]"),
    "bool tree": (set_at(["policy", "order", 0], True), "policy.order[0]"),
    "3-tree order": (lambda r: r["policy"].update(order=[0, 1, 2]), "policy.order"),
    "empty order": (set_at(["policy", "order"], []), "policy.order"),
    "string threshold": (set_at(["policy", "eps_plus", 3], "inf"), "policy.eps_plus[3]"),
    "short thresholds": (lambda r: r["policy"]["eps_plus"].pop(), "policy.eps_plus"),
    "bias changed": (set_at(["policy", "bias"], 0.5), "policy.bias"),
    "bias missing": (drop_at(["policy", "bias"]), "policy.bias"),
    "threshold text": (set_at(["policy", "threshold"], "0"), "policy.threshold"),
    "alpha 1": (set_at(["policy", "alpha"], 1), "policy.alpha"),
    "zero cost": (set_at(["policy", "costs", 4], 0), "policy.costs[4]"),
    "unknown method": (set_at(["policy", "method"], "magic"), "policy.method"),
    "policy a list": (set_at(["policy"], [1, 2]), "'policy'"),
    "no policy": (drop_at(["policy"]), "'policy'"),
    "wrong format": (set_at(["format"], "something/1"), "'format'"),
    "tree count": (set_at(["model", "trees"], 3), "model.trees"),
    "another model": (set_at(["model", "sha256"], "0" * 64), "model.sha256"),
    "negative disagreements": (set_at(["policy", "fit_disagreements"], -1), "policy.fit_disagreements"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_tampered_policies_are_refused_naming_the_field(setup, case):
    model, _, fitted = setup
    edit, field = CASES[case]
    with pytest.raises(InputError) as info:
        read_policy(tampered(policy_json(fitted, model), edit), model, name="p.json")
    assert field in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize(
    "text,needle",
    [
        ("[1, 2]", "(the file)"),
        ('{"format": "opstudio-qwyc-policy/1", "policy": {"threshold": NaN}}', "NaN"),
        ("{" * 200 + "}" * 200, "levels"),
        ("not json", "not valid JSON"),
        (b"\xff\xfe", "UTF-8"),
    ],
)
def test_files_that_are_not_policies(setup, text, needle):
    model = setup[0]
    with pytest.raises(InputError, match=needle.replace("(", r"\(").replace(")", r"\)")):
        read_policy(text, model, name="p.json")


@pytest.fixture(scope="module")
def model_and_rows():
    rng = np.random.default_rng(5)
    frame = pd.DataFrame(rng.normal(size=(800, 3)), columns=["a", "b", "c"])
    y = (frame["a"] - frame["b"] + rng.normal(size=800) > 0).astype(int)
    text = (
        lightgbm.LGBMClassifier(n_estimators=30, max_depth=3, verbose=-1)
        .fit(frame, y)
        .booster_.model_to_string()
        .encode()
    )
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
    assert (
        record["fit"]["budget"] == "rationed"
        and record["fit"]["fit"]["mean_models"] == policy.evaluate(f)["mean_models"]
    )
    assert all(v is None for v in record["policy"]["eps_plus"])  # negative exits only: no positive exit anywhere
    with pytest.raises(InputError):
        read_policy(policy_json(FittedPolicy(policy, stats)), model)
