"""The sample builders: every shipped file has one builder, and the generated samples are what ships."""

import gzip

import numpy as np

from engine.io import SAMPLES, load_rated
from engine.io._samples import sample_path
from engine.sample_builders import BUILDERS, write_csv
from engine.sample_builders.synthetic import build, synthetic_rare_events


def test_every_shipped_sample_has_exactly_one_builder():
    made = [key for builder in BUILDERS for key in builder.keys]
    assert sorted(made) == sorted(SAMPLES), "each key of engine.io.SAMPLES is made by exactly one builder"


def test_synthetic_builder_makes_both_synthetic_files(tmp_path):
    frames = build()
    assert set(frames) == {"synthetic", "synthetic_counts"}
    for key, frame in frames.items():
        write_csv(frame, tmp_path / SAMPLES[key].file)
        ours, shipped = (tmp_path / SAMPLES[key].file).read_bytes(), sample_path(key).read_bytes()
        if SAMPLES[key].file.endswith(".gz"):  # compared inflated: another zlib may compress differently
            ours, shipped = gzip.decompress(ours), gzip.decompress(shipped)
        assert ours == shipped, f"{key}: the shipped file is not what its builder makes"


def test_synthetic_sample_is_an_extreme_rare_event_set():
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


def test_reproducible_skops_gives_the_same_bytes_for_the_same_model_and_stays_readable():
    import skops.io as sio
    from sklearn.ensemble import HistGradientBoostingClassifier

    from engine.qwyc import load_model
    from engine.sample_builders._files import reproducible_skops

    rng = np.random.default_rng(0)
    x = rng.normal(size=(400, 4))
    y = (x[:, 0] + rng.normal(size=400) > 0).astype(int)
    model = HistGradientBoostingClassifier(max_iter=5, max_depth=3, early_stopping=False, random_state=0).fit(x, y)
    raw = sio.dumps(model)
    again = sio.dumps(sio.loads(raw, trusted=sio.get_untrusted_types(data=raw)))  # other objects, other ids
    assert reproducible_skops(raw) == reproducible_skops(again)
    loaded = load_model(reproducible_skops(raw), name="m.skops")
    np.testing.assert_allclose(
        loaded.ensemble.bias + loaded.ensemble.contributions(x).sum(1), model.decision_function(x), atol=1e-10, rtol=0
    )
