"""Training on a table: the model file checked field by field, wide categorical columns refused in bounded memory."""

import copy
import json
import math
import tracemalloc

import numpy as np
import pandas as pd
import pytest

from engine.constraints._tabular import (
    MAX_CATEGORIES,
    Preprocessing,
    TableModel,
    TableSpec,
    fit_preprocessing,
    model_json,
    read_model_json,
    train_on_table,
)
from engine.errors import InputError


def small_table(n=400, seed=3):
    rng = np.random.default_rng(seed)
    sex = rng.choice(["F", "M"], n)
    signal = rng.normal(size=n) + 0.7 * (sex == "M")
    age = rng.integers(18, 70, n).astype(float)
    age[rng.random(n) < 0.05] = np.nan
    return pd.DataFrame(
        {
            "sex": sex,
            "age": age,
            "job": rng.choice(["clerk", "tech", None], n),
            "signal": signal.round(3),
            "label": (signal + rng.normal(size=n) > 0.5).astype(int),
        }
    )


@pytest.fixture(scope="module")
def fitted():
    frame = small_table()
    model = train_on_table(
        frame, TableSpec(label="label", group="sex", group_value="F", demographic_parity=0.8, test_fraction=0.25)
    )
    return frame, model, json.loads(model_json(model))


def one_hot_oracle(prep: Preprocessing, frame: pd.DataFrame) -> np.ndarray:
    """The design matrix cell by cell, in plain Python."""
    rows = []
    for _, row in frame.iterrows():
        cells = []
        for c, mean, scale in zip(prep.numeric, prep.means, prep.scales):
            v = row[c]
            cells.append(((mean if pd.isna(v) else float(v)) - mean) / scale)
        for c, cats in zip(prep.categorical, prep.categories):
            text = "(missing)" if pd.isna(row[c]) or not str(row[c]).strip() else str(row[c]).strip()
            cells += [1.0 if text == cat else 0.0 for cat in cats]
        rows.append(cells)
    return np.array(rows)


def test_transform_equals_the_cell_by_cell_one_hot(fitted):
    frame, model, _ = fitted
    probe = frame.head(60).copy()
    probe.loc[probe.index[:3], "job"] = ["unseen", " tech ", ""]
    np.testing.assert_array_equal(model.preprocessing.transform(probe), one_hot_oracle(model.preprocessing, probe))


def test_the_model_file_round_trips_exactly_and_is_strict_json(fitted):
    frame, model, record = fitted
    text = model_json(model)
    assert "NaN" not in text and "Infinity" not in text
    again = read_model_json(text)
    assert again.preprocessing == model.preprocessing and again.intercept == model.intercept
    np.testing.assert_array_equal(again.coef, model.coef)
    np.testing.assert_array_equal(again.decide(frame)[0], model.decide(frame)[0])
    assert model_json(again) == text


def test_a_rate_that_is_not_a_number_is_written_as_null_and_read_back():
    prep = Preprocessing(("a",), (0.0,), (1.0,), (), ())
    model = TableModel(prep, np.array([1.0]), 0.0, (), {"train": {"error": math.nan, "rows": 3}})
    text = model_json(model)
    assert json.loads(text)["rates"]["train"]["error"] is None
    assert math.isnan(read_model_json(text).rates["train"]["error"])
    with pytest.raises(InputError, match="not a finite number"):
        model_json(TableModel(prep, np.array([math.inf]), 0.0, ()))


def mutate(record, path, value=None, delete=False):
    out = copy.deepcopy(record)
    node = out
    for key in path[:-1]:
        node = node[key]
    if delete:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return json.dumps(out)


@pytest.mark.parametrize(
    "path, value, field",
    [
        (("coefficients", 0), 1e308, "coefficients[0]"),
        (("coefficients", 0), "0.5", "coefficients[0]"),
        (("coefficients", 0), None, "coefficients[0]"),
        (("coefficients", 0), True, "coefficients[0]"),
        (("coefficients",), [1.0], "coefficients"),
        (("coefficients",), "1,2,3", "coefficients"),
        (("coefficients",), {"a": 1}, "coefficients"),
        (("intercept",), 1e13, "intercept"),
        (("intercept",), [0.0], "intercept"),
        (("preprocessing", "numeric", 0, "scale"), 0, "preprocessing.numeric[0].scale"),
        (("preprocessing", "numeric", 0, "scale"), -1.0, "preprocessing.numeric[0].scale"),
        (("preprocessing", "numeric", 0, "mean"), None, "preprocessing.numeric[0].mean"),
        (("preprocessing", "numeric", 0, "mean"), "nan", "preprocessing.numeric[0].mean"),
        (("preprocessing", "numeric", 0, "column"), 7, "preprocessing.numeric[0].column"),
        (("preprocessing", "numeric", 0), [1, 2], "preprocessing.numeric[0]"),
        (("preprocessing", "numeric"), {"column": "age"}, "preprocessing.numeric"),
        (("preprocessing", "categorical", 0, "categories"), "FM", "preprocessing.categorical[0].categories"),
        (("preprocessing", "categorical", 0, "categories"), ["F", 1], "preprocessing.categorical[0].categories[1]"),
        (("preprocessing", "categorical", 0, "categories"), ["F", "F"], "preprocessing.categorical[0].categories"),
        (("preprocessing", "categorical", 0, "categories"), ["F", "M", "X"], "feature_names"),
        (("preprocessing", "categorical", 0, "extra"), 1, "preprocessing.categorical[0].extra"),
        (("preprocessing",), [], "preprocessing"),
        (("feature_names", 0), "other", "feature_names"),
        (("feature_names",), "sex=F", "feature_names"),
        (("format",), "opstudio-constrained-linear/2", "format"),
        (("rates", "train", "error"), "low", "rates.train.error"),
        (("rates", "train"), [1], "rates.train"),
        (("rates", "validation"), {}, "rates.validation"),
        (("settings", "label"), {"x": 1}, "settings.label"),
        (("settings", "evil"), "x", "settings.evil"),
        (("constraints",), "none", "constraints"),
        (("flags_nobody",), "no", "flags_nobody"),
        (("unknown_key",), 1, "unknown_key"),
    ],
)
def test_every_bad_field_is_an_input_error_naming_it(fitted, path, value, field):
    _, _, record = fitted
    with pytest.raises(InputError) as caught:
        read_model_json(mutate(record, path, value))
    assert f"'{field}'" in str(caught.value)


@pytest.mark.parametrize("key", ["format", "feature_names", "preprocessing", "coefficients", "intercept"])
def test_a_missing_required_field_is_named(fitted, key):
    _, _, record = fitted
    with pytest.raises(InputError, match=f"'{key}' is missing"):
        read_model_json(mutate(record, (key,), delete=True))


@pytest.mark.parametrize(
    "text, expected",
    [
        ('{"intercept": NaN}', "NaN is not a JSON number"),
        ('{"intercept": Infinity}', "Infinity is not a JSON number"),
        ("[" * 100 + "]" * 100, "nests objects or arrays 100 deep"),
        ("[1, 2]", "must be an object"),
        ("not json", "not valid JSON"),
    ],
)
def test_documents_that_are_not_model_files(text, expected):
    with pytest.raises(InputError, match=expected):
        read_model_json(text)


def test_an_integer_too_large_for_a_float_is_refused(fitted):
    _, _, record = fitted
    text = mutate(record, ("coefficients", 0), "@@").replace('"@@"', "1" + "0" * 400)  # 1e400 as an integer
    with pytest.raises(InputError, match="'coefficients\\[0\\]' is 1000"):
        read_model_json(text)


def test_scores_that_overflow_are_refused_with_the_rows(fitted):
    frame, _, record = fitted
    model = read_model_json(mutate(record, ("preprocessing", "numeric", 0, "scale"), 1e-320))
    with pytest.raises(InputError, match="Numeric column 'age'.*not finite"):
        model.decide(frame)
    signal = record["feature_names"].index("signal")
    huge = read_model_json(mutate(record, ("coefficients", signal), 1e12))
    with pytest.raises(InputError, match="score is not a finite number at rows 1, 2, 3, 4, 5 and "):
        huge.decide(frame.assign(signal=1e305))


def test_infinite_values_in_a_numeric_column_are_named(fitted):
    frame, model, _ = fitted
    with pytest.raises(InputError, match="Numeric column 'signal': infinite values at row 3 "):
        model.decide(frame.assign(signal=np.where(np.arange(len(frame)) == 2, np.inf, frame["signal"])))


@pytest.mark.slow
def test_a_30000_category_column_is_refused_by_name_in_bounded_memory():
    n = 30_000
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {"customer": [f"c{i:05d}" for i in range(n)], "x": rng.normal(size=n), "label": rng.integers(0, 2, n)}
    )
    tracemalloc.start()
    try:
        with pytest.raises(InputError) as caught:
            train_on_table(frame, TableSpec(label="label", test_fraction=0))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    message = str(caught.value)
    assert "'customer' has 30,000 distinct values" in message
    assert "Exclude it (--exclude customer" in message and "bucket it" in message
    # a one-hot design of 30,000 rows x 30,000 categories would be 7.2 GB; the refusal needs a few MB
    assert peak < 64 * 2**20
    # excluded, the same table trains
    model = train_on_table(frame, TableSpec(label="label", exclude=("customer",), test_fraction=0))
    assert model.preprocessing.feature_names == ("x",)


def test_the_category_cap_and_the_feature_cap():
    frame = pd.DataFrame({"c": [f"v{i}" for i in range(MAX_CATEGORIES)] * 2})
    assert len(fit_preprocessing(frame, ["c"]).categories[0]) == MAX_CATEGORIES
    wide = pd.DataFrame({f"c{j}": [f"v{i}" for i in range(700)] for j in range(3)})
    with pytest.raises(InputError, match="2,100 design columns .*; at most 2,000 .*'c0' \\(700 categories\\)"):
        fit_preprocessing(wide, list(wide.columns))


def test_the_table_route_reports_what_the_entry_point_reports(fitted):
    _, model, _ = fitted
    assert model.rates["train"]["constraints_unmet_by_decisions"] == list(model.fitted.unmet_)
    assert model.constraints == ("positive rate(protected) >= 0.8 x positive rate(reference)",)


def test_a_design_matrix_over_the_cell_cap_is_refused_before_it_is_built(monkeypatch):
    import engine.constraints._tabular as tabular

    monkeypatch.setattr(tabular, "MAX_DESIGN_CELLS", 1_000)
    frame = small_table(n=300)
    with pytest.raises(InputError, match="300 rows x 7 features .*at most 1,000 cells"):
        train_on_table(frame, TableSpec(label="label"))


def test_predictions_in_chunks_equal_the_whole_table(fitted, monkeypatch):
    import engine.constraints._tabular as tabular

    frame, model, _ = fitted
    whole = model.decide(frame)
    monkeypatch.setattr(tabular, "TRANSFORM_CHUNK_CELLS", 7 * 13)  # 13 rows at a time
    chunked = model.decide(frame)
    np.testing.assert_allclose(chunked[0], whole[0], rtol=0, atol=1e-12)
    np.testing.assert_array_equal(chunked[1], whole[1])
    assert model.decide(frame.head(0))[0].shape == (0,)
