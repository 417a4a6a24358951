"""Shipped samples: present and loadable (their builders are tested in tests/engine/sample_builders)."""

import numpy as np
import pytest

from engine.io import load_counts, load_rated
from engine.io._samples import SAMPLES, sample_path
from engine.pn import threshold_grid


@pytest.mark.parametrize("key", list(SAMPLES))
def test_every_sample_is_shipped(key):
    assert sample_path(key).exists(), f"run python sample_data/make_samples.py ({key})"


def test_counts_sample_matches_the_rated_sample():
    d = load_rated(sample_path("synthetic"))
    counts = load_counts(sample_path("synthetic_counts"))
    grid = threshold_grid(d.scores, d.labels, axes=counts.axes)
    np.testing.assert_allclose(counts.tp, grid.tp)
    np.testing.assert_allclose(counts.fp, grid.fp)


def test_bank_sample_has_attribution_and_loads():
    readme = (sample_path("bank").parent / "README.md").read_text()
    assert "CC BY 4.0" in readme and "Moro" in readme
    d = load_rated(sample_path("bank"))
    assert d.score_names == ("score_profile", "score_campaign")
    assert d.n_unrated > 0  # below the review threshold: never rated
    import pandas as pd

    full = pd.read_csv(sample_path("bank_holdout"))
    assert set(full["split"]) == {"tune", "test"} and set(full["y"]) == {"yes", "no"}


def test_the_dated_sample_is_the_monitoring_pages_input():
    from engine.io import INPUT_KINDS, samples_of_kind
    from engine.io._tables import read_table
    from engine.monitor import dated_from_frame, detect_dated

    assert list(samples_of_kind("dated")) == ["monitoring"] and "dated" in INPUT_KINDS
    table = read_table(sample_path("monitoring"))
    dated = dated_from_frame(table.frame, detect_dated(table.frame))
    assert dated.mapping.date_col == "date" and dated.mapping.group_col == "region" and dated.days == 364
