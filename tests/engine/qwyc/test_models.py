"""Model files read into trees: bias + ΣF equals each library's own raw margin."""

import lightgbm
import numpy as np
import pandas as pd
import pytest
import skops.io as skops_io
import xgboost

from engine.errors import InputError
from engine.qwyc._models import load_model

FEATURES = [f"feature_{j}" for j in range(5)]


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2000, 5))
    x[rng.random(x.shape) < 0.08] = np.nan
    x[rng.random(x.shape) < 0.05] = 0.0
    y = (np.nan_to_num(x[:, 0]) - np.nan_to_num(x[:, 1]) + rng.normal(size=2000) > 0).astype(int)
    return pd.DataFrame(x, columns=FEATURES), y


LIGHTGBM_OPTIONS = [
    {},
    {"zero_as_missing": True},
    {"use_missing": False},
    {"boosting_type": "dart"},
    {"boosting_type": "goss"},
    {"n_estimators": 300, "num_leaves": 15},
    {"objective": "binary", "max_depth": -1, "num_leaves": 63, "min_child_samples": 5},
]


@pytest.mark.slow
@pytest.mark.parametrize("options", LIGHTGBM_OPTIONS)
def test_lightgbm_text_reproduces_the_raw_margin(data, options):
    """Oracle: LightGBM's own raw score (its C++ predictor) on rows with NaN and exact zeros."""
    frame, y = data
    params = {"n_estimators": 60, "max_depth": 4, "verbose": -1, **options}
    model = lightgbm.LGBMClassifier(**params).fit(frame, y)
    loaded = load_model(model.booster_.model_to_string().encode(), name="m.txt")
    assert loaded.file_format == "lightgbm" and loaded.feature_names == tuple(FEATURES)
    assert loaded.n_trees == params["n_estimators"]
    f = loaded.ensemble.contributions(loaded.features(frame))
    margin = model.booster_.predict(frame, raw_score=True)
    # both sum the same float64 leaf values; only the order of the additions differs
    np.testing.assert_allclose(loaded.ensemble.bias + f.sum(axis=1), margin, rtol=0, atol=1e-12)
    # per tree too: each column is that iteration alone
    np.testing.assert_array_equal(
        f[:, 7], model.booster_.predict(frame, start_iteration=7, num_iteration=1, raw_score=True)
    )


def test_lightgbm_feature_names_and_a_one_leaf_tree(data):
    frame, y = data
    named = frame.rename(columns=lambda c: f"col_{c}")
    model = lightgbm.LGBMClassifier(n_estimators=3, min_child_samples=5000, verbose=-1).fit(named, y)  # no split
    loaded = load_model(model.booster_.model_to_string().encode(), name="m.txt")
    assert loaded.feature_names == tuple(named.columns)
    f = loaded.ensemble.contributions(loaded.features(named))
    np.testing.assert_allclose(f.sum(axis=1), model.booster_.predict(named, raw_score=True), rtol=0, atol=1e-12)


XGBOOST_OPTIONS = [
    {},
    {"objective": "binary:logitraw"},
    {"n_estimators": 300, "max_depth": 6},
    {"num_parallel_tree": 3, "subsample": 0.8},
    {"tree_method": "exact", "gamma": 2.0},
    {"base_score": 0.2},
]


@pytest.mark.slow
@pytest.mark.parametrize("suffix", ["json", "ubj"])
@pytest.mark.parametrize("options", XGBOOST_OPTIONS)
def test_xgboost_json_and_ubjson_reproduce_the_margin(data, tmp_path, suffix, options):
    """Oracle: XGBoost's own margin (output_margin=True) on rows with NaN."""
    frame, y = data
    model = xgboost.XGBClassifier(**{"n_estimators": 80, "max_depth": 4, **options}).fit(frame, y)
    path = tmp_path / f"model.{suffix}"
    model.get_booster().save_model(str(path))
    loaded = load_model(path.read_bytes(), name=path.name)
    assert loaded.file_format == "xgboost" and loaded.feature_names == tuple(FEATURES)
    f = loaded.ensemble.contributions(loaded.features(frame))
    margin = model.get_booster().predict(xgboost.DMatrix(frame), output_margin=True)
    # XGBoost adds its float32 leaves one by one in float32: each addition rounds the running sum by at most
    # half a float32 ulp, so the difference is bounded by eps32/2 * sum of |running sums| (twice that allowed)
    running = loaded.ensemble.bias + np.cumsum(f, axis=1)
    bound = np.finfo(np.float32).eps * (np.abs(running).sum(axis=1) + abs(loaded.ensemble.bias))
    assert np.all(np.abs(running[:, -1] - margin) <= bound)


def test_xgboost_json_and_ubjson_give_the_same_trees(data, tmp_path):
    """Oracle for the UBJSON decoder: the same booster saved both ways reads into identical arrays."""
    frame, y = data
    booster = xgboost.XGBClassifier(n_estimators=30, max_depth=5).fit(frame, y).get_booster()
    a = load_model(bytes(booster.save_raw("json")), name="m.json")
    b = load_model(bytes(booster.save_raw("ubj")), name="m.ubj")
    assert a.ensemble.bias == b.ensemble.bias and a.feature_names == b.feature_names
    for s, t in zip(a.ensemble.trees, b.ensemble.trees):
        for field in ("feature", "threshold", "left", "right", "value", "missing_left", "is_leaf"):
            np.testing.assert_array_equal(getattr(s, field), getattr(t, field))


SKLEARN_CASES = ["hist", "hist_nan", "hist_names", "classic", "classic_exponential", "classic_subsample"]


@pytest.mark.slow
@pytest.mark.parametrize("kind", SKLEARN_CASES)
def test_skops_sklearn_models_reproduce_decision_function(data, kind):
    """Oracle: scikit-learn's own decision_function."""
    from sklearn.ensemble import GradientBoostingClassifier, HistGradientBoostingClassifier

    frame, y = data
    x = frame if kind in ("hist_nan", "hist_names") else frame.fillna(0.0)
    model = {
        "hist": HistGradientBoostingClassifier(max_iter=40, early_stopping=False),
        "hist_nan": HistGradientBoostingClassifier(max_iter=40, early_stopping=False),
        "hist_names": HistGradientBoostingClassifier(
            max_iter=40, early_stopping=False, max_features=0.5, random_state=1
        ),
        "classic": GradientBoostingClassifier(n_estimators=40),
        "classic_exponential": GradientBoostingClassifier(n_estimators=40, loss="exponential"),
        "classic_subsample": GradientBoostingClassifier(
            n_estimators=40, subsample=0.7, max_features="sqrt", random_state=0
        ),
    }[kind]
    fit_x = x.to_numpy() if kind in ("hist", "hist_nan", "classic") else x
    model.fit(fit_x, y)
    loaded = load_model(skops_io.dumps(model), name="m.skops")
    names = tuple(FEATURES) if fit_x is x else tuple(f"x{j}" for j in range(5))
    assert loaded.file_format == "skops" and loaded.feature_names == names
    f = loaded.ensemble.contributions(x.to_numpy())
    np.testing.assert_allclose(loaded.ensemble.bias + f.sum(axis=1), model.decision_function(fit_x), rtol=0, atol=1e-10)


class Untrusted:
    """A class skops does not know: its file must be refused before anything is instantiated."""

    def __init__(self):
        self.payload = np.arange(3)


def test_untrusted_skops_content_is_refused_and_other_models_named():
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import FunctionTransformer

    with pytest.raises(InputError, match="Untrusted.*not trusted"):
        load_model(skops_io.dumps(Untrusted()), name="evil.skops")
    with pytest.raises(InputError, match="unsupported model Pipeline"):
        load_model(skops_io.dumps(make_pipeline(FunctionTransformer(np.log1p))), name="pipe.skops")


def test_features_by_name_extra_columns_ignored_missing_named(data):
    frame, y = data
    model = lightgbm.LGBMClassifier(n_estimators=5, verbose=-1).fit(frame, y)
    loaded = load_model(model.booster_.model_to_string().encode(), name="m.txt")
    shuffled = frame[FEATURES[::-1]].assign(note="x", label=y)
    np.testing.assert_array_equal(loaded.features(shuffled), loaded.features(frame))
    with pytest.raises(InputError, match="no column 'feature_3'"):
        loaded.features(frame.drop(columns=["feature_3"]))
    with pytest.raises(InputError, match="Feature column 'feature_0': non-numeric"):
        loaded.features(frame.assign(feature_0=["a"] * len(frame)))


def test_unsupported_models_and_files(data):
    frame, y = data
    multi = lightgbm.LGBMClassifier(n_estimators=3, verbose=-1).fit(frame, np.arange(len(frame)) % 3)
    with pytest.raises(InputError, match="only binary"):
        load_model(multi.booster_.model_to_string().encode())
    cat = frame.assign(feature_4=pd.Categorical(np.arange(len(frame)) % 4))
    by_category = (cat["feature_4"].cat.codes == 2).astype(int)  # a split on the category is certain
    model = lightgbm.LGBMClassifier(n_estimators=3, verbose=-1, min_data_per_group=5).fit(cat, by_category)
    with pytest.raises(InputError, match="categorical splits"):
        load_model(model.booster_.model_to_string().encode())
    for raw in (b"score,label\n0.1,1\n", b"", b"\x00\x01garbage", b"tree\nbroken"):
        with pytest.raises(InputError):
            load_model(raw)


def test_lightgbm_kinds_whose_trees_do_not_sum_to_the_score_are_refused_by_name(data):
    frame, y = data
    filled = frame.fillna(0.0)
    linear = lightgbm.LGBMClassifier(n_estimators=5, linear_tree=True, verbose=-1).fit(filled, y)
    with pytest.raises(InputError, match="linear_tree"):
        load_model(linear.booster_.model_to_string().encode(), name="lin.txt")
    forest = lightgbm.LGBMClassifier(
        n_estimators=5, boosting_type="rf", bagging_freq=1, bagging_fraction=0.5, verbose=-1
    ).fit(frame, y)
    with pytest.raises(InputError, match="random forest"):
        load_model(forest.booster_.model_to_string().encode(), name="rf.txt")
    regression = lightgbm.LGBMRegressor(n_estimators=5, verbose=-1).fit(frame, y)
    with pytest.raises(InputError, match="objective 'regression'"):
        load_model(regression.booster_.model_to_string().encode(), name="reg.txt")


@pytest.mark.slow
def test_xgboost_kinds_the_evaluator_cannot_reproduce_are_refused_by_name(data):
    frame, y = data
    cases = {
        "dart": xgboost.XGBClassifier(n_estimators=5, booster="dart"),
        "gblinear": xgboost.XGBClassifier(n_estimators=5, booster="gblinear"),
        "multi:softprob": xgboost.XGBClassifier(n_estimators=5, objective="multi:softprob", num_class=3),
    }
    for needle, model in cases.items():
        target = np.arange(len(frame)) % 3 if needle.startswith("multi") else y
        raw = bytes(model.fit(frame, target).get_booster().save_raw("json"))
        with pytest.raises(InputError, match=needle):
            load_model(raw, name="m.json")
    cat = frame.assign(feature_4=pd.Categorical(np.arange(len(frame)) % 4))
    model = xgboost.XGBClassifier(n_estimators=3, enable_categorical=True, tree_method="hist").fit(cat, y)
    with pytest.raises(InputError, match="categorical"):
        load_model(bytes(model.get_booster().save_raw("json")), name="cat.json")


@pytest.mark.slow
def test_reading_a_model_never_loads_the_native_libraries(tmp_path):
    """No user byte can reach LightGBM's or XGBoost's C++ code: with both libraries made unimportable, read both."""
    import subprocess
    import sys

    from tests.fuzz.model_corpus import lightgbm_text, xgboost_json

    (tmp_path / "m.txt").write_bytes(lightgbm_text())
    (tmp_path / "m.json").write_bytes(xgboost_json())
    code = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('lightgbm', 'xgboost'):\n"
        "            raise ImportError('blocked ' + name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "from pathlib import Path\n"
        "from engine.qwyc._models import load_model\n"
        f"d = Path({str(tmp_path)!r})\n"
        "print(load_model((d / 'm.txt').read_bytes()).n_trees, load_model((d / 'm.json').read_bytes()).n_trees)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["20", "10"]
