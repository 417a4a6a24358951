"""The audit sample: made by its builder from ADBench's satimage-2, and an audit whose interval can be checked."""

from pathlib import Path

import pandas as pd
import pytest

from engine.audit import load_audit
from engine.io import SAMPLES, load_rated
from engine.io._samples import sample_path
from engine.sample_builders import satimage

ROOT = Path(__file__).resolve().parents[3]
#: the public data next to the checkout (../shared), or next to its worktree folder (../../shared)
SHARED = next((p for p in (ROOT.parent / "shared", ROOT.parent.parent / "shared") if p.exists()), ROOT / "shared")


@pytest.mark.skipif(
    not (SHARED / "data" / "adbench" / "31_satimage-2.npz").exists(),
    reason="needs ../shared/data/adbench (the public data the sample is made from)",
)
def test_the_builder_makes_the_shipped_files():
    for key, frame in satimage.build(SHARED).items():
        if isinstance(frame, bytes):  # the design record
            assert frame == sample_path(key).read_bytes()
            continue
        shipped = pd.read_csv(sample_path(key), keep_default_na=False)
        ours = pd.read_csv(pd.io.common.StringIO(frame.to_csv(index=False)), keep_default_na=False)
        pd.testing.assert_frame_equal(ours, shipped)


def test_the_three_files_fit_together():
    population = pd.read_csv(sample_path("satimage_population"))
    rated = load_rated(sample_path("satimage_rated"))
    audit = load_audit(sample_path("satimage_audit"))
    assert audit.review_threshold == satimage.REVIEW_THRESHOLD and rated.n_rated == int(
        (population["score"] >= satimage.REVIEW_THRESHOLD).sum()
    )
    assert audit.documents.sum() == int((population["score"] < satimage.REVIEW_THRESHOLD).sum())
    assert audit.reviewed.sum() == satimage.AUDIT_BUDGET and audit.warnings == ()
    known = population.set_index("doc_id")["known_label"]
    assert (known.loc[audit.ids.astype(int)].to_numpy() == audit.labels).all()
    assert {SAMPLES[k].kind for k in ("satimage_population", "satimage_rated", "satimage_audit")} == {
        "population",
        "rated",
        "audit",
    }
    assert "satimage" in (sample_path("satimage_audit").parent / "README.md").read_text()
