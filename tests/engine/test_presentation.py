"""Tables in words: labels, one convention for shares, counts, thresholds, no None."""

import math

import numpy as np
import pandas as pd
import pytest

from engine.io import load_rated, sample_path
from engine.pn import (
    allocate_capacity,
    analytic_path,
    compare_paths,
    graph_path,
    operating_point,
    pn_curve,
    segment_curves,
    threshold_grid,
    upper_hull,
)
from engine.pn.display import sweep_table, what_if_table
from engine.presentation import EMPTY, column_label, format_value, is_raw_name, present_table


@pytest.mark.parametrize(
    "value, kind, shown",
    [
        (0.0522876, "share", "5.2 %"),
        (0.0005, "share", "0.05 %"),
        (1.0, "share", "100.0 %"),
        (0.0, "share", "0 %"),
        (99.861939, "percent", "99.9 %"),
        (856.364, "count", "856"),
        (1387.0, "count", "1,387"),
        (26618156.2, "number", "26,618,156"),
        (5.66667, "number", "5.667"),
        (0.4246123456, "threshold", "0.424612"),
        (math.inf, "threshold", "∞ (flag nothing)"),
        (0.000267, "seconds", "0.27 ms"),
        (0.39, "seconds", "390 ms"),
        (12.34, "seconds", "12.3 s"),
        (None, "count", EMPTY),
        (float("nan"), "share", EMPTY),
        (np.nan, "text", EMPTY),
        (True, "flag", "yes"),
        (np.bool_(False), "flag", "no"),
        ("north", "text", "north"),
        (-0.0611, "threshold", "−0.0611"),
    ],
)
def test_format_value(value, kind, shown):
    assert format_value(value, kind) == shown


def test_labels_are_words():
    assert column_label("target_marginal_precision") == "Target marginal precision"
    assert column_label("tp") == "True positives"
    assert column_label("threshold_score_image") == "Threshold of score_image"  # the user's name kept
    assert column_label("some_new_column") == "Some new column"
    assert column_label("true positives") == "True positives"
    assert is_raw_name("objective_gap_to_best") and not is_raw_name("Threshold of score_image")


def _tables():
    d = load_rated(sample_path("synthetic"), group_col="region")
    s = d.column("score_text")
    hull = upper_hull(pn_curve(s, d.labels, d.weights))
    curves = segment_curves(s, d.labels, d.groups, d.weights, unrated_groups=d.unrated_groups)
    grid = threshold_grid(
        np.column_stack([d.column(c) for c in d.score_names]),
        d.labels,
        d.weights,
        bins=20,
        score_names=list(d.score_names),
    )
    return {
        "sweep": sweep_table(hull),
        "segments": allocate_capacity(curves, 2000).table(),
        "paths": compare_paths(grid, [graph_path(grid), analytic_path(grid, "power")], 0.3),
        "what-if": what_if_table(operating_point(target=0.3, hull=hull), operating_point(target=0.5, hull=hull)),
    }


@pytest.fixture(scope="module")
def tables():
    return _tables()


@pytest.mark.parametrize("name", ["sweep", "segments", "paths", "what-if"])
def test_engine_tables_read_in_words(tables, name):
    raw = tables[name]
    shown = present_table(raw, row_kinds="quantity" if name == "what-if" else None)
    assert shown.shape == raw.shape
    assert not any(is_raw_name(c) for c in shown.columns)
    cells = shown.to_numpy(dtype=object).ravel()
    assert all(isinstance(c, str) for c in cells)
    assert not any(c in ("None", "nan", "NaN", "<NA>") for c in cells)
    # one convention: no share is written as a fraction beside percentages
    for label in shown.columns:
        if "precision" in label.lower() and label != "Quantity":
            column = [c for c in shown[label] if c != EMPTY]
            assert all(c.endswith("%") for c in column), (label, column)


def test_the_sweep_reads_as_the_issue_asks(tables):
    shown = present_table(tables["sweep"])
    assert list(shown.columns)[:3] == [
        "Target marginal precision",
        "False positives per extra true positive",
        "Threshold",
    ]
    assert shown.iloc[0, 0] == "5.0 %" and shown.iloc[2, 1] == "5.667"


def test_a_wide_table_is_shown_one_quantity_per_row(tables):
    raw = tables["paths"]
    shown = present_table(raw, transpose_on="method")
    assert list(shown.columns) == ["Quantity", *raw["method"]]
    assert len(shown) == raw.shape[1] - 1
    assert "Runtime" in list(shown["Quantity"])


def test_the_frame_given_is_not_changed(tables):
    raw = tables["segments"]
    before = raw.copy()
    present_table(raw)
    pd.testing.assert_frame_equal(raw, before)
