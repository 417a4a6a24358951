"""engine/qwyc/features.py: the model's features without formatting numbers as text, one row without a DataFrame.

Oracle: the extraction it replaced, kept here verbatim (every column converted, then formatted as text to tell a
missing cell from a word). Both must give the same matrix, bit for bit, or the same InputError message, on
generated tables of every column kind, on the shipped model with UCI Adult's rows (from a DataFrame and from a
CSV read by ``read_table``), and on the hostile model corpus's models; one row as a mapping, a Series or an array
must give what a one-row DataFrame gives, and the decisions applied must be the same.
"""

import functools
import io
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.errors import InputError, describe_rows
from engine.io import read_table
from engine.io._numbers import to_floats
from engine.qwyc import adult_gbt_sample, apply_policy, fit_qwyc, load_model
from tests.fuzz import model_corpus as mc


def features_before(model, frame: pd.DataFrame) -> np.ndarray:
    """``ModelFile.features`` before issue 37, verbatim (the oracle)."""
    missing = [c for c in model.feature_names if c not in frame.columns]
    if missing:
        raise InputError(
            f"The data has no column {missing[0]!r}, which model '{model.name}' needs"
            f"{f' (and {len(missing) - 1} more)' if len(missing) > 1 else ''}. The model's features "
            f"are {', '.join(model.feature_names[:8])}{' ...' if len(model.feature_names) > 8 else ''}."
        )
    out = np.empty((len(frame), len(model.feature_names)))
    for j, c in enumerate(model.feature_names):
        values = to_floats(frame[c])
        bad = np.isnan(values) & frame[c].notna().to_numpy() & (frame[c].astype(str).str.strip() != "").to_numpy()
        if bad.any():
            raise InputError(
                f"Feature column '{c}': non-numeric values at {describe_rows(bad)}. The model was "
                "trained on numbers: encode categories as the training pipeline did."
            )
        out[:, j] = values
    if model.float32_inputs:
        out = out.astype(np.float32).astype(np.float64)
    return out


def outcome(extract, rows):
    """The matrix, or the InputError's message."""
    try:
        return extract(rows)
    except InputError as exc:
        return f"InputError: {exc}"


def assert_same(got, want) -> None:
    if isinstance(want, str) or isinstance(got, str):
        assert got == want
    else:
        np.testing.assert_array_equal(got, want)  # NaN where NaN, every other value bit for bit
        assert got.dtype == np.float64 and got.shape == want.shape


@pytest.fixture(scope="module")
def corpus_models():
    """The hostile corpus's readable models (LightGBM text, XGBoost JSON, skops) on features a, b, c, d."""
    return [
        load_model(mc.lightgbm_text(), name="m.txt"),
        load_model(mc.xgboost_json(), name="m.json"),  # float32 inputs
        load_model(mc.skops_file("hist"), name="h.skops"),
        load_model(mc.skops_file("gb"), name="g.skops"),
    ]


#: cells of a text column: numbers as text (spaces, exponents, infinities), blanks, missing values, words
TEXT_CELLS = st.sampled_from(
    ["1.5", " 2 ", "-0.25", "1e3", "inf", "-inf", "", "  ", "abc", "nan", "NaN", "1_000", "0x10", "3,5", "+7", ".5"]
)
NUMBERS = st.floats(allow_nan=True, allow_infinity=True, width=64)
OBJECT_CELLS = st.one_of(NUMBERS, st.integers(-(2**40), 2**40), TEXT_CELLS, st.none(), st.just(pd.NA), st.booleans())


def column(kind: str, n: int):
    """A strategy for one column of ``n`` cells of a given kind (numpy, nullable, text, object, categorical)."""
    if kind == "float":
        return st.lists(NUMBERS, min_size=n, max_size=n).map(lambda v: pd.Series(v, dtype="float64"))
    if kind == "float32":
        return st.lists(st.floats(width=32), min_size=n, max_size=n).map(lambda v: pd.Series(v, dtype="float32"))
    if kind == "int":
        return st.lists(st.integers(-(2**62), 2**62), min_size=n, max_size=n).map(lambda v: pd.Series(v, dtype="int64"))
    if kind == "bool":
        return st.lists(st.booleans(), min_size=n, max_size=n).map(lambda v: pd.Series(v, dtype=bool))
    if kind == "Int64":
        cells = st.one_of(st.integers(-(2**40), 2**40), st.none())
        return st.lists(cells, min_size=n, max_size=n).map(lambda v: pd.Series(v, dtype="Int64"))
    if kind == "Float64":
        cells = st.one_of(st.floats(allow_nan=False), st.none())
        return st.lists(cells, min_size=n, max_size=n).map(lambda v: pd.Series(v, dtype="Float64"))
    if kind == "string":
        cells = st.one_of(TEXT_CELLS, st.none())
        return st.lists(cells, min_size=n, max_size=n).map(lambda v: pd.Series(v, dtype="string"))
    if kind == "category":
        return st.lists(TEXT_CELLS, min_size=n, max_size=n).map(lambda v: pd.Series(v, dtype="category"))
    return st.lists(OBJECT_CELLS, min_size=n, max_size=n).map(lambda v: pd.Series(v, dtype=object))


KINDS = ["float", "float32", "int", "bool", "Int64", "Float64", "string", "category", "object", "object"]


@st.composite
def tables(draw):
    n = draw(st.integers(1, 12))
    kinds = draw(st.lists(st.sampled_from(KINDS), min_size=4, max_size=4))
    frame = pd.DataFrame({name: draw(column(kind, n)).to_numpy() for name, kind in zip("abcd", kinds)})
    for name, kind in zip("abcd", kinds):  # keep each column's dtype (the dict above may have inferred another)
        frame[name] = draw(column(kind, n)) if kind in ("Int64", "Float64", "string", "category") else frame[name]
    return frame.assign(extra=["x"] * n)


@pytest.mark.slow  # 300 drawn tables, every corpus model (7 s)
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(frame=tables())
def test_a_table_of_any_column_kinds_gives_the_earlier_matrix_or_message(corpus_models, frame):
    for model in corpus_models:
        assert_same(outcome(model.features, frame), outcome(functools.partial(features_before, model), frame))


ROW_CELLS = st.one_of(NUMBERS, st.integers(-(2**40), 2**40), TEXT_CELLS, st.none(), st.booleans())


@pytest.mark.slow  # 300 drawn rows, every corpus model (7 s)
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cells=st.lists(ROW_CELLS, min_size=4, max_size=4))
def test_one_row_as_a_mapping_series_or_array_gives_what_a_one_row_table_gives(corpus_models, cells):
    row = dict(zip("abcd", cells))
    for model in corpus_models:
        want = outcome(functools.partial(features_before, model), pd.DataFrame([row]))
        assert_same(outcome(model.features, row), want)
        assert_same(outcome(model.features, {**row, "note": "ignored"}), want)
        assert_same(outcome(model.features, pd.Series(row, dtype=object)), want)
        assert_same(outcome(model.features, np.array(cells, dtype=object)), want)
        if all(isinstance(c, float) for c in cells):  # a plain float array
            assert_same(outcome(model.features, np.array(cells)), want)


def test_arrays_of_another_width_and_missing_keys_are_refused_by_name(corpus_models):
    model = corpus_models[0]
    with pytest.raises(InputError, match=r"reads 4 features \(a, b, c, d\), in that order; .* shape \(3,\)"):
        model.features(np.zeros(3))
    with pytest.raises(InputError, match=r"shape \(2, 5\)"):
        model.features(np.zeros((2, 5)))
    with pytest.raises(InputError, match="no column 'c', which model 'm.txt' needs"):
        model.features({"a": 1.0, "b": 2.0, "d": 3.0})
    with pytest.raises(InputError, match="Feature column 'b': non-numeric values at row 1 "):
        model.features({"a": 1.0, "b": "abc", "c": 0.0, "d": 0.0})
    message = outcome(model.features, np.array([[1, "1"], ["x", 2], [3, "y"], [4, 5]], dtype=object).repeat(2, 1))
    assert message.startswith("InputError: Feature column 'a': non-numeric values at row 2 ")


@pytest.fixture(scope="module")
def adult():
    trained = adult_gbt_sample(60)
    names = list(trained.model.feature_names)
    frame = pd.DataFrame(trained.x_test, columns=names).assign(label=trained.y_test)
    return trained, frame


def test_the_shipped_model_on_adult_rows_from_a_frame_and_a_csv(adult):
    trained, frame = adult
    model = trained.model
    want = features_before(model, frame)
    assert np.isnan(want).any()  # Adult has missing cells: they stay missing
    np.testing.assert_array_equal(model.features(frame), want)
    buffer = io.StringIO()
    frame.to_csv(buffer, index=False)
    csv = read_table(buffer.getvalue().encode(), name="adult_test.csv").frame
    np.testing.assert_array_equal(model.features(csv), features_before(model, csv))
    np.testing.assert_array_equal(model.features(csv), want)
    # numbers written as text in one column (an object column): parsed once, the same values
    texty = frame.assign(x0=frame["x0"].map(lambda v: "" if math.isnan(v) else f" {v!r} ").astype(object))
    np.testing.assert_array_equal(model.features(texty), want)
    np.testing.assert_array_equal(model.features(trained.x_test), want)  # the array itself
    policy = fit_qwyc(model.ensemble.contributions(trained.x_train), alpha=0.01, bias=model.ensemble.bias)
    decision, n_eval = apply_policy(policy, model, frame)
    old = policy.predict_lazy(model.ensemble, want)
    np.testing.assert_array_equal(decision, old[0])
    np.testing.assert_array_equal(n_eval, old[1])
    for i in (0, 1, 17, len(frame) - 1):  # one row: a mapping, a Series, an array, as the batch decided it
        for row in (frame.iloc[i].to_dict(), frame.iloc[i], trained.x_test[i]):
            one = apply_policy(policy, model, row)
            assert (one[0][0], one[1][0]) == (decision[i], n_eval[i])


def test_a_text_cell_among_adult_rows_is_named_as_before(adult):
    trained, frame = adult
    bad = frame.assign(x3=frame["x3"].astype(object))
    bad.loc[[4, 40, 41], "x3"] = ["Bachelors", "  ", "n/a"]
    message = outcome(trained.model.features, bad)
    assert message == outcome(lambda f: features_before(trained.model, f), bad)
    assert message.startswith("InputError: Feature column 'x3': non-numeric values at rows 5, 42 ")
