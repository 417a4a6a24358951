"""Coverage by simulation on the shipped satimage-2 population (every label known): the score interval holds its
level where the Wald interval does not, and stratification narrows it against simple random sampling."""

import numpy as np
import pandas as pd
import pytest

from engine.audit import simulate_coverage
from engine.errors import InputError
from engine.io._samples import sample_path

REPETITIONS = 150


@pytest.fixture(scope="module")
def population():
    frame = pd.read_csv(sample_path("satimage_population"))
    return frame["score"].to_numpy(), frame["known_label"].to_numpy()


@pytest.mark.slow
def test_score_interval_covers_at_the_nominal_level_and_stratification_narrows_it(population):
    scores, labels = population
    assert labels[scores < 0.9].sum() >= 0.2 * labels.sum()  # at least a fifth of the positives below the line
    srs = {
        r.method: r
        for r in simulate_coverage(
            scores, labels, below=0.9, budget=300, strata=1, methods=("score", "wald"), repetitions=REPETITIONS
        )
    }
    strat = {
        r.method: r
        for r in simulate_coverage(
            scores, labels, below=0.9, budget=300, strata=6, methods=("score", "wald"), repetitions=REPETITIONS
        )
    }
    for design in (srs, strat):
        score = design["score"]
        assert score.true_positives == 15 and score.repetitions == REPETITIONS
        # within 2 points of 95 %, allowing two Monte Carlo standard errors (~1.5 points each)
        assert score.coverage >= 0.93 - 2 * score.standard_error
        # the Wald interval has no width when an audit finds nothing: far below its level
        assert design["wald"].coverage < 0.8
    assert strat["score"].mean_width < srs["score"].mean_width


def test_simulation_refuses_labels_that_are_not_binary(population):
    scores, _ = population
    with pytest.raises(InputError):
        simulate_coverage(scores, np.full(scores.size, 2), below=0.9, budget=100)
