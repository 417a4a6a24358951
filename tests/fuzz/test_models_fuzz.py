"""Model and policy files under generated mutations: a correct result or one InputError naming what is wrong.

* Policies (property-based): a valid policy file is mutated field by field (values of
  every JSON type, deletions, permutations, threshold moves); the reader either refuses
  it with an InputError naming the field, or the decisions applied are exactly those the
  mutated file defines (an independent row-by-row interpreter of the documented format);
  an unmodified policy keeps the fit's guarantee (at most floor(alpha N) disagreements).
* Models: random bytes, random edits of real LightGBM / XGBoost / skops files, and
  the hostile corpus (tests/fuzz/model_corpus.py): a model or an InputError, never
  another exception.
"""

import json
import math

import lightgbm  # noqa: F401 (declared dependencies: a missing one fails, never skips)
import numpy as np
import pytest
import skops  # noqa: F401
import xgboost  # noqa: F401
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.errors import InputError
from engine.qwyc._deployment import apply_policy, fit_policy, policy_json, read_policy
from engine.qwyc._models import load_model
from tests.fuzz import model_corpus as mc

_CACHE: dict = {}


def fitted():
    """One model, its rows and a valid policy file (built once: hypothesis reuses it)."""
    if not _CACHE:
        model = load_model(mc.lightgbm_text(), name="m.txt")
        frame, _ = mc._data()
        text = policy_json(fit_policy(model, frame, alpha=0.02), model)
        f = model.ensemble.contributions(model.features(frame))
        _CACHE.update(model=model, frame=frame, text=text, f=f)
    return _CACHE


def interpret(record: dict, f: np.ndarray):
    """Decisions and trees evaluated as the file format documents them, one row at a time."""
    p = record["policy"]

    def threshold(v, side):
        if v is None:
            return -math.inf if side == "minus" else math.inf
        if v == "all":
            return math.inf if side == "minus" else -math.inf
        return float(v)

    decisions, counts = [], []
    for row in f:
        g = float(p["bias"])
        for r, t in enumerate(p["order"]):
            g += row[t]
            if r == len(p["order"]) - 1:
                decisions.append(g >= p["threshold"])
                counts.append(r + 1)
                break
            if g > threshold(p["eps_plus"][r], "plus"):
                decisions.append(True)
                counts.append(r + 1)
                break
            if g < threshold(p["eps_minus"][r], "minus"):
                decisions.append(False)
                counts.append(r + 1)
                break
    return np.array(decisions), np.array(counts)


FIELDS = [
    "format",
    "model",
    "model.sha256",
    "model.trees",
    "model.file",
    "policy",
    "policy.order",
    "policy.order[]",
    "policy.eps_minus",
    "policy.eps_minus[]",
    "policy.eps_plus[]",
    "policy.threshold",
    "policy.bias",
    "policy.costs",
    "policy.costs[]",
    "policy.alpha",
    "policy.method",
    "policy.fit_seconds",
    "policy.fit_disagreements",
    "fit",
    "engine_version",
]
VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 25),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.floats(-3, 3),
    st.just("all"),
    st.text(max_size=4),
    st.lists(st.integers(0, 19), max_size=25),
    st.just({}),
    st.just(float("nan")),
    st.just(float("inf")),
)


@st.composite
def mutations(draw):
    """(field, mutated record, non-finite value written) of the valid policy."""
    record = json.loads(fitted()["text"])
    n = len(record["policy"]["order"])
    field = draw(st.sampled_from(FIELDS))
    action = draw(st.sampled_from(["set", "delete", "permute", "nudge"]))
    head, _, tail = field.partition(".")
    parent, key = (record, head) if not tail else (record[head], tail)
    indexed = key.endswith("[]")
    key = key.rstrip("[]")
    value = None
    if action == "permute" and key == "order":
        parent[key] = draw(st.permutations(parent[key]))
    elif action == "nudge" and key in ("eps_minus", "eps_plus"):
        i = draw(st.integers(0, n - 1))
        parent[key][i] = draw(st.one_of(st.none(), st.just("all"), st.floats(-4, 4)))
    elif action == "delete" and not indexed:
        del parent[key]
    elif indexed:
        value = draw(VALUES)
        parent[key][draw(st.integers(0, n - 1))] = value
    else:
        value = draw(VALUES)
        parent[key] = value
    odd = any(isinstance(v, float) and not math.isfinite(v) for v in _leaves(value))
    return key, record, odd


def _leaves(value):
    if isinstance(value, list):
        for v in value:
            yield from _leaves(v)
    else:
        yield value


@given(mutations())
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_a_mutated_policy_is_refused_naming_the_field_or_applied_as_written(mutation):
    key, record, odd = mutation
    state = fitted()
    text = json.dumps(record, allow_nan=True)
    try:
        policy = read_policy(text, state["model"], name="p.json")
    except InputError as exc:
        message = str(exc)
        assert "\n" not in message
        if odd:  # NaN / Infinity are not JSON: refused by the parser, which names the literal
            assert "not valid JSON" in message
        else:
            names = {
                "eps_minus": ("eps_minus", "eps_plus"),
                "eps_plus": ("eps_plus", "eps_minus"),
                "model": ("model",),
                "policy": ("policy",),
                "format": ("format",),
            }.get(key, (key,))
            assert any(n in message for n in names), (key, message)
        return
    decision, n_eval = apply_policy(policy, state["model"], state["frame"])
    expected, counts = interpret(record, state["f"])
    np.testing.assert_array_equal(decision, expected)
    np.testing.assert_array_equal(n_eval, counts)


def test_the_unmodified_policy_keeps_the_fits_guarantee():
    state = fitted()
    policy = read_policy(state["text"], state["model"])
    decision, _ = apply_policy(policy, state["model"], state["frame"])
    full = state["model"].ensemble.bias + state["f"].sum(axis=1) >= 0
    assert np.sum(decision != full) <= math.floor(0.02 * len(full))
    np.testing.assert_array_equal(decision, interpret(json.loads(state["text"]), state["f"])[0])


def _model_files() -> dict[str, bytes]:
    files = {"lightgbm.txt": mc.lightgbm_text(), "xgboost.json": mc.xgboost_json(), "hist.skops": mc.skops_file()}
    files.update(mc.lightgbm_crashers())
    files.update(mc.xgboost_crashers())
    files.update(mc.skops_hostile("/nonexistent/marker"))
    return files


def test_every_hostile_model_file_is_a_model_or_an_input_error():
    for name, raw in _model_files().items():
        try:
            load_model(raw, name=name)
        except InputError as exc:
            assert "\n" not in str(exc) and len(str(exc)) < 1200, name


@pytest.mark.slow
@given(st.sampled_from(["lightgbm.txt", "xgboost.json", "hist.skops"]), st.data())
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_random_edits_of_real_model_files(name, data):
    """Flip, delete or insert bytes anywhere: a model (whose trees are well formed) or an InputError."""
    raw = bytearray(_model_files()[name])
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(0, len(raw) - 1))
        op = data.draw(st.sampled_from(["flip", "delete", "insert", "digit"]))
        if op == "flip":
            raw[i] ^= data.draw(st.integers(1, 255))
        elif op == "delete":
            del raw[i : i + data.draw(st.integers(1, 64))]
        elif op == "digit":
            raw[i] = ord(data.draw(st.sampled_from("0123456789-.e")))
        else:
            raw[i:i] = data.draw(st.binary(min_size=1, max_size=16))
    try:
        model = load_model(bytes(raw), name=name)
    except InputError:
        return
    x = np.random.default_rng(0).normal(size=(20, len(model.feature_names)))
    assert np.isfinite(model.ensemble.contributions(x)).all()


@given(st.binary(max_size=400))
@settings(max_examples=200, deadline=None)
def test_random_bytes_with_a_model_signature(tail):
    for head in (b"tree\nversion=v4\n", b'{"learner": ', b"{i\x07learner", b"PK\x03\x04schema.json"):
        try:
            load_model(head + tail, name="random")
        except InputError:
            pass
