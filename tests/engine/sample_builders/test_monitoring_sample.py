"""The monitoring sample: what its builder makes, the drift where sample_data/README.md says, the threshold it quotes."""

import gzip

import numpy as np

from engine.io._samples import sample_path
from engine.monitor import load_dated
from engine.pn import operating_point
from engine.sample_builders import write_csv
from engine.sample_builders.monitoring import DRIFT_DATE, build, marginal_precision


def test_shipped_file_is_what_the_builder_makes(tmp_path):
    write_csv(build()["monitoring"], tmp_path / "m.csv.gz")
    assert gzip.decompress((tmp_path / "m.csv.gz").read_bytes()) == gzip.decompress(
        sample_path("monitoring").read_bytes()
    )


def test_drift_and_the_documented_threshold():
    data = load_dated(sample_path("monitoring"))
    assert data.days == 364 and 30_000 < data.data.n_rated < 40_000 and data.data.n_unrated > 0
    first_quarter = data.dates < np.datetime64("2025-04-07")
    op = operating_point(data.data.scores[first_quarter, 0], data.data.labels[first_quarter], 0.3)
    assert op.threshold == 0.568  # quoted in sample_data/README.md and the README
    before, after = marginal_precision([0.568, 0.568], [DRIFT_DATE - 1, DRIFT_DATE])
    assert abs(before - 0.31) < 0.005 and abs(after - 0.11) < 0.005
    readme = (sample_path("monitoring").parent / "README.md").read_text()
    assert "monitoring_rated.csv.gz" in readme and "2025-07-07" in readme and "0.568" in readme
