"""Model files read into trees: bias + ΣF equals each library's own raw margin."""

import numpy as np
import pandas as pd
import pytest

from engine.errors import InputError
from engine.qwyc.models import load_model

lightgbm = pytest.importorskip("lightgbm")
xgboost = pytest.importorskip("xgboost")
skops_io = pytest.importorskip("skops.io")

FEATURES = [f"feature_{j}" for j in range(5)]


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2000, 5))
    x[rng.random(x.shape) < 0.08] = np.nan
    x[rng.random(x.shape) < 0.05] = 0.0
    y = (np.nan_to_num(x[:, 0]) - np.nan_to_num(x[:, 1]) + rng.normal(size=2000) > 0).astype(int)
    return pd.DataFrame(x, columns=FEATURES), y


@pytest.mark.parametrize("options", [{}, {"zero_as_missing": True}, {"use_missing": False}])
def test_lightgbm_text_reproduces_the_raw_margin(data, options):
    frame, y = data
    model = lightgbm.LGBMClassifier(n_estimators=60, max_depth=4, verbose=-1, **options).fit(frame, y)
    loaded = load_model(model.booster_.model_to_string().encode(), name="m.txt")
    assert loaded.file_format == "lightgbm" and loaded.feature_names == tuple(FEATURES) and loaded.n_trees == 60
    f = loaded.ensemble.contributions(loaded.features(frame))
    margin = model.booster_.predict(frame, raw_score=True)
    np.testing.assert_allclose(loaded.ensemble.bias + f.sum(axis=1), margin, rtol=0, atol=1e-6)
    # per tree too: each column is that iteration alone
    np.testing.assert_allclose(f[:, 7], model.booster_.predict(frame, start_iteration=7, num_iteration=1,
                                                                raw_score=True), atol=1e-9)


@pytest.mark.parametrize("suffix", ["json", "ubj"])
def test_xgboost_json_and_ubjson_reproduce_the_margin(data, tmp_path, suffix):
    frame, y = data
    model = xgboost.XGBClassifier(n_estimators=80, max_depth=4).fit(frame, y)
    path = tmp_path / f"model.{suffix}"
    model.get_booster().save_model(str(path))
    loaded = load_model(path.read_bytes(), name=path.name)
    assert loaded.file_format == "xgboost" and loaded.feature_names == tuple(FEATURES)
    f = loaded.ensemble.contributions(loaded.features(frame))
    margin = model.get_booster().predict(xgboost.DMatrix(frame), output_margin=True)
    # XGBoost sums its float32 leaves in float32: agreement is to float32 rounding of the running sum
    tolerance = 4 * np.finfo(np.float32).eps * (1 + np.abs(f).sum(axis=1))
    assert np.all(np.abs(loaded.ensemble.bias + f.sum(axis=1) - margin) <= np.maximum(tolerance, 1e-6))


@pytest.mark.parametrize("kind", ["hist", "classic"])
def test_skops_sklearn_models_reproduce_decision_function(data, kind):
    from sklearn.ensemble import GradientBoostingClassifier, HistGradientBoostingClassifier

    frame, y = data
    filled = frame.fillna(0.0)
    model = (HistGradientBoostingClassifier(max_iter=40, early_stopping=False) if kind == "hist"
             else GradientBoostingClassifier(n_estimators=40)).fit(filled, y)
    loaded = load_model(skops_io.dumps(model), name="m.skops")
    assert loaded.file_format == "skops" and loaded.feature_names == tuple(FEATURES)
    f = loaded.ensemble.contributions(loaded.features(filled))
    np.testing.assert_allclose(loaded.ensemble.bias + f.sum(axis=1), model.decision_function(filled), atol=1e-6)


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
