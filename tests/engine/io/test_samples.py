"""Shipped samples: present, loadable, and reproducible from their generator."""

import gzip

import numpy as np
import pytest

from engine.io import load_counts, load_rated
from engine.io.samples import SAMPLES, sample_path, synthetic_rare_events, write_csv
from engine.pn import threshold_grid


@pytest.mark.parametrize("key", list(SAMPLES))
def test_every_sample_is_shipped(key):
    assert sample_path(key).exists(), f"run python sample_data/make_samples.py ({key})"


def test_synthetic_sample_is_an_extreme_rare_event_set(tmp_path):
    frame = synthetic_rare_events()
    write_csv(frame, tmp_path / "s.csv.gz")
    # reproducible byte for byte: the shipped file is what the generator makes
    assert gzip.decompress((tmp_path / "s.csv.gz").read_bytes()) == gzip.decompress(sample_path("synthetic").read_bytes())
    d = load_rated(sample_path("synthetic"))
    assert 18_000 <= d.n_rated <= 22_000
    assert d.n_unrated > 0 and d.score_names == ("score_image", "score_text")
    # about 0.1 % of the 2,000,000-document population is positive; most positives pass review
    assert 1_200 <= d.positives <= 2_200
    # the two classifiers are correlated in the population (review selection makes the rated
    # documents' scores look anti-correlated: both scores low is never rated)
    everyone = synthetic_rare_events(population=100_000, review_share=1.0, unrated_share=0.0)
    assert len(everyone) == 100_000
    assert np.corrcoef(everyone[["score_image", "score_text"]].to_numpy().T)[0, 1] > 0.3


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
