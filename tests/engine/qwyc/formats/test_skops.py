"""skops files audited before skops constructs anything: payloads never run, bombs never inflate."""

import importlib
import io
import json
import os
import tracemalloc
import zipfile

import pytest
import skops.io as sio

from engine.errors import InputError
from engine.qwyc.formats import SKOPS_ALLOWED, SKOPS_ALLOWED_TYPES, read_skops
from tests.fuzz.model_corpus import skops_bombs, skops_file, skops_hostile, skops_payloads


def test_the_payloads_are_live_under_plain_skops(tmp_path):
    """The oracle that the payload files are real: skops, told to trust their types, runs them."""
    for name in skops_payloads("unused"):
        marker = tmp_path / name
        payload = skops_payloads(str(marker))[name]
        sio.loads(payload, trusted=sio.get_untrusted_types(data=payload))
        assert marker.exists(), name


def test_payloads_are_refused_before_anything_is_constructed(tmp_path, monkeypatch):
    marker = tmp_path / "marker"
    calls = []
    monkeypatch.setattr(sio, "loads", lambda *a, **k: calls.append(a))
    files = {**skops_payloads(str(marker)), **skops_hostile(str(marker))}
    assert len(files) >= 25
    for name, raw in files.items():
        with pytest.raises(InputError) as info:
            read_skops(raw, name)
        assert name in str(info.value) and "\n" not in str(info.value)
        assert not marker.exists(), name
    assert calls == []  # skops never saw any of them
    message = str(pytest.raises(InputError, read_skops, skops_payloads(str(marker))["exec.skops"], "e.skops").value)
    assert "builtins.exec" in message and "not trusted" in message and "Nothing in the file was run" in message


def test_the_allow_list_is_exact_type_names_and_covers_real_files():
    from sklearn.ensemble import GradientBoostingClassifier, HistGradientBoostingClassifier

    for name in SKOPS_ALLOWED_TYPES:  # exact names of real classes, no prefixes
        module, _, cls = name.rpartition(".")
        assert isinstance(getattr(importlib.import_module(module), cls), type), name
    import numpy as np

    rng = np.random.default_rng(0)
    x = rng.normal(size=(200, 3))
    y = (x[:, 0] > 0).astype(int)
    models = [
        GradientBoostingClassifier(n_estimators=2, loss=loss, random_state=rs).fit(x, y)
        for loss in ("log_loss", "exponential")
        for rs in (None, 0, np.random.RandomState(1))
    ]
    models.append(
        GradientBoostingClassifier(n_estimators=30, n_iter_no_change=2, validation_fraction=0.3, subsample=0.5).fit(
            x, y
        )
    )  # oob_score_ is a numpy.float64
    models += [
        HistGradientBoostingClassifier(max_iter=2, early_stopping=es, max_features=mf, random_state=0).fit(x, y)
        for es in (False, True)
        for mf in (1.0, 0.5)
    ]
    seen = set()

    def walk(o):
        if isinstance(o, dict):
            if o.get("__loader__") not in (None, "CachedNode"):
                seen.add((o["__loader__"], f"{o['__module__']}.{o['__class__']}"))
            for v in o.values():
                walk(v)
        elif isinstance(o, list):
            for v in o:
                walk(v)

    for model in models:
        raw = sio.dumps(model)
        walk(json.loads(zipfile.ZipFile(io.BytesIO(raw)).read("schema.json")))
        read_skops(raw, "real.skops")
    allowed = {(loader, t) for loader, types in SKOPS_ALLOWED.items() for t in types}
    assert seen <= allowed
    # every allowed pair is one real files hold (the Cython losses as ObjectNode: skops 0.10's way)
    extra = allowed - seen
    assert extra <= {
        ("ObjectNode", "sklearn._loss._loss.CyHalfBinomialLoss"),
        ("ObjectNode", "sklearn._loss._loss.CyExponentialLoss"),
    }, extra


@pytest.mark.slow
@pytest.mark.parametrize("name", ["array_bomb.skops", "whitespace_bomb.skops"])
def test_decompression_bombs_are_refused_within_bounded_memory(name):
    raw = skops_bombs()[name]
    assert len(raw) < 3_000_000
    tracemalloc.start()
    try:
        with pytest.raises(InputError, match="inflates to more than"):
            read_skops(raw, name)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 * 2**20, peak


def test_a_real_file_still_reads_after_the_audit():
    model = read_skops(skops_file("classic"), "gb.skops")
    assert model.ensemble.n_models == 5 and model.feature_names == ("a", "b", "c", "d")
    assert os.environ.get("NEVER_SET_BY_A_PAYLOAD") is None


# --- the model read straight from the audited archive, against skops + from_sklearn ----------------------------------


def _frame(n=600, seed=0, nan=False):
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 5))
    y = (x[:, 0] - x[:, 1] + 0.5 * x[:, 2] * x[:, 3] + rng.normal(size=n) > 0).astype(int)
    if nan:  # missing in the signal columns, in different shares: some splits send NaN left, some right
        x[rng.random(n) < 0.2, 0] = np.nan
        x[(rng.random(n) < 0.1) & (y == 1), 1] = np.nan
    return pd.DataFrame(x, columns=[f"f_{j}" for j in range(5)]), y


def _models():
    import numpy as np
    from sklearn.ensemble import GradientBoostingClassifier as GB
    from sklearn.ensemble import HistGradientBoostingClassifier as HGB

    hist = dict(early_stopping=False)
    return {
        "hgb_one_tree": (HGB(max_iter=1, **hist), {}),
        "hgb_deep_slow": (HGB(max_iter=30, max_depth=None, max_leaf_nodes=63, learning_rate=0.05, **hist), {}),
        "hgb_stumps_fast": (HGB(max_iter=12, max_depth=1, learning_rate=1.0, **hist), {}),
        "hgb_nan": (HGB(max_iter=25, max_depth=4, **hist), {"nan": True}),
        "hgb_nan_names": (HGB(max_iter=25, max_features=0.6, random_state=3, **hist), {"nan": True, "names": True}),
        "hgb_string_labels": (HGB(max_iter=10, **hist), {"labels": np.array(["no", "yes"])}),
        "hgb_int_labels": (HGB(max_iter=10, l2_regularization=1.0, **hist), {"labels": np.array([3, 7])}),
        "hgb_early_stopping": (
            HGB(max_iter=200, early_stopping=True, n_iter_no_change=3, random_state=0),
            {"names": True},
        ),
        "gb_one_stump": (GB(n_estimators=1, max_depth=1), {}),
        "gb_deep": (GB(n_estimators=15, max_depth=6, learning_rate=0.3), {"names": True}),
        "gb_learning_rate_1": (GB(n_estimators=8, learning_rate=1), {}),
        "gb_exponential": (GB(n_estimators=10, loss="exponential"), {"labels": np.array(["bad", "good"])}),
        "gb_subsample": (GB(n_estimators=12, subsample=0.6, max_features="sqrt", random_state=0), {"names": True}),
        "gb_early_stopping": (
            GB(n_estimators=300, n_iter_no_change=2, validation_fraction=0.3, random_state=0),
            {"labels": np.array([-1, 1])},
        ),
    }


def _assert_same_model(read, expected, names):
    import numpy as np

    assert read.ensemble.source == expected.source and read.ensemble.bias == expected.bias
    assert read.feature_names == names and read.float32_inputs is False
    assert read.ensemble.n_models == expected.n_models
    for k, (a, b) in enumerate(zip(read.ensemble.trees, expected.trees)):
        for field in ("feature", "threshold", "left", "right", "value", "missing_left", "is_leaf"):
            assert getattr(a, field).dtype == getattr(b, field).dtype, (k, field)
            np.testing.assert_array_equal(getattr(a, field), getattr(b, field), err_msg=f"tree {k}, {field}")
        assert a.depth == b.depth


@pytest.mark.slow
@pytest.mark.parametrize("case", list(_models()))
def test_the_trees_read_directly_equal_skops_then_from_sklearn(case):
    """Oracle: skops constructs the model and from_sklearn reads it; the direct reader must give exactly the same."""
    import numpy as np

    from engine.qwyc._ensembles import from_sklearn

    model, how = _models()[case]
    frame, y = _frame(nan=how.get("nan", False))
    labels = how.get("labels")
    target = labels[y] if labels is not None else y
    fit_x = frame if how.get("names") else frame.to_numpy()
    model.fit(fit_x, target)
    raw = sio.dumps(model)
    read = read_skops(raw, "m.skops")
    expected = from_sklearn(sio.loads(raw, trusted=sio.get_untrusted_types(data=raw)))
    names = tuple(frame.columns) if how.get("names") else tuple(f"x{j}" for j in range(5))
    _assert_same_model(read, expected, names)
    if case.startswith("hgb"):  # both sides add the same leaf values in the same order
        np.testing.assert_array_equal(read.ensemble.decision_function(frame.to_numpy()), model.decision_function(fit_x))
    else:  # scikit-learn's initial score is logit(prior[1]), ours log(prior[1] / prior[0])
        np.testing.assert_allclose(
            read.ensemble.decision_function(frame.to_numpy()), model.decision_function(fit_x), rtol=0, atol=1e-12
        )
    if case == "hgb_nan":
        missing = np.concatenate([t.missing_left[~t.is_leaf] for t in read.ensemble.trees])
        assert missing.any() and not missing.all()  # NaN goes left at some splits, right at others


def test_the_shipped_model_read_directly_equals_skops_then_from_sklearn():
    from engine.io._samples import sample_path
    from engine.qwyc._ensembles import from_sklearn

    raw = sample_path("adult_gbt").read_bytes()
    expected = from_sklearn(sio.loads(raw, trusted=sio.get_untrusted_types(data=raw)))
    _assert_same_model(read_skops(raw, "adult_gbt.skops"), expected, tuple(f"x{j}" for j in range(14)))


@pytest.mark.slow
def test_reading_imports_neither_skops_nor_scikit_learn():
    import subprocess
    import sys

    from engine.io._samples import sample_path

    code = (
        "import sys; from engine.qwyc.formats import read_skops; "
        f"m = read_skops(open({str(sample_path('adult_gbt'))!r}, 'rb').read(), 'a.skops'); "
        "assert m.ensemble.n_models == 500; "
        "print(sorted(k for k in sys.modules if k.split('.')[0] in ('sklearn', 'skops')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


def test_the_dtypes_scikit_learn_casts_tree_arrays_to_are_its_own():
    from sklearn.ensemble._hist_gradient_boosting.common import PREDICTOR_RECORD_DTYPE
    from sklearn.tree._tree import NODE_DTYPE

    from engine.qwyc.formats import skops as reader

    assert reader._PREDICTOR_RECORD == PREDICTOR_RECORD_DTYPE
    assert reader._TREE_NODE == NODE_DTYPE


def _with_array(raw: bytes, member: str, array) -> bytes:
    import numpy as np

    from tests.fuzz.model_corpus import _replace_member

    out = io.BytesIO()
    np.save(out, array, allow_pickle=False)
    return _replace_member(raw, member, out.getvalue())


def _members_of(raw: bytes, loader_class: str, key: str) -> list[str]:
    """The .npy members holding attribute ``key`` of every ``loader_class`` object in the file."""
    found = []

    def walk(o):
        if isinstance(o, dict):
            if o.get("__class__") == loader_class and isinstance(o.get("content"), dict):
                node = o["content"].get("content", {}).get(key)
                if isinstance(node, dict) and "file" in node:
                    found.append(node["file"])
            for v in o.values():
                walk(v)
        elif isinstance(o, list):
            for v in o:
                walk(v)

    walk(json.loads(zipfile.ZipFile(io.BytesIO(raw)).read("schema.json")))
    return found


@pytest.mark.parametrize("kind", ["hist", "classic"])
def test_node_arrays_of_another_platform_are_cast_as_scikit_learn_does(kind):
    """Byte-swapped tree nodes, and 32-bit index fields: scikit-learn's __setstate__ casts them; so does the reader."""
    import numpy as np

    from engine.qwyc._ensembles import from_sklearn

    raw = skops_file(kind)
    cls, key = ("TreePredictor", "nodes") if kind == "hist" else ("Tree", "nodes")
    members = _members_of(raw, cls, key)
    assert len(members) == 5
    with zipfile.ZipFile(io.BytesIO(raw)) as z:
        first = np.load(io.BytesIO(z.read(members[0])))
        second = np.load(io.BytesIO(z.read(members[1])))
    index = "feature_idx" if kind == "hist" else "feature"
    narrow = np.dtype(
        [
            (
                n,
                "<i4"
                if n == index or (kind == "classic" and n in ("left_child", "right_child", "n_node_samples"))
                else first.dtype.fields[n][0],
            )
            for n in first.dtype.names
        ]
    )
    edited = _with_array(
        _with_array(raw, members[0], first.astype(first.dtype.newbyteorder())), members[1], second.astype(narrow)
    )
    expected = from_sklearn(sio.loads(edited, trusted=sio.get_untrusted_types(data=edited)))
    _assert_same_model(read_skops(edited, "m.skops"), expected, ("a", "b", "c", "d"))
    # fields whose types cannot be cast (a float child index), or (Tree) a field renamed: scikit-learn refuses them
    bad = np.dtype([(n, "<f8" if n in ("left", "left_child") else first.dtype.fields[n][0]) for n in first.dtype.names])
    broken = {"float_child.skops": _with_array(raw, members[0], first.astype(bad))}
    if kind == "classic":
        renamed = np.dtype([("other" if n == "threshold" else n, first.dtype.fields[n][0]) for n in first.dtype.names])
        broken["renamed.skops"] = _with_array(raw, members[0], first.astype(renamed, casting="unsafe"))
    for name, edited in broken.items():
        with pytest.raises(Exception):  # noqa: B017 - whatever scikit-learn raises while skops constructs the model
            sio.loads(edited, trusted=sio.get_untrusted_types(data=edited))
        with pytest.raises(InputError, match="inconsistent"):
            read_skops(edited, name)


def test_models_the_trees_cannot_reproduce_are_refused_as_before():
    import numpy as np
    from sklearn.ensemble import GradientBoostingClassifier, HistGradientBoostingClassifier

    frame, y = _frame()
    codes = np.arange(len(frame)) % 4
    cat = frame.assign(f_4=codes)
    model = HistGradientBoostingClassifier(max_iter=5, categorical_features=[4], early_stopping=False)
    model.fit(cat.to_numpy(), (codes == 2).astype(int))
    with pytest.raises(InputError, match="'cat.skops' contains types that are not trusted here.*ColumnTransformer"):
        read_skops(sio.dumps(model), "cat.skops")  # scikit-learn 1.4+ keeps its categories in a ColumnTransformer
    raw = skops_file("hist")
    member = _members_of(raw, "TreePredictor", "nodes")[2]
    nodes = np.load(io.BytesIO(zipfile.ZipFile(io.BytesIO(raw)).read(member)))
    nodes["is_categorical"][0] = 1
    with pytest.raises(InputError, match="'edited.skops': categorical splits are not supported"):
        read_skops(_with_array(raw, member, nodes), "edited.skops")
    zero = GradientBoostingClassifier(n_estimators=3, init="zero").fit(frame.to_numpy(), y)
    with pytest.raises(InputError, match="'zero.skops': GradientBoostingClassifier must use the default"):
        read_skops(sio.dumps(zero), "zero.skops")
    # a multiclass model is told it is multiclass (its schema says so before any type is audited)
    for kind in (HistGradientBoostingClassifier(max_iter=3), GradientBoostingClassifier(n_estimators=2)):
        multi = kind.fit(frame.to_numpy(), np.arange(len(frame)) % 3)
        with pytest.raises(InputError, match=r"'multi.skops' is a multiclass model \(3 classes\): multiclass models"):
            read_skops(sio.dumps(multi), "multi.skops")
