"""The audit's figures: the PN and precision-recall curves extended below the line, the strata, the band."""

import numpy as np
import pytest

from engine.audit import estimate, load_audit
from engine.audit.display import audit_pn_figure, audit_pr_figure, extended_curve, strata_figure
from engine.io import load_rated
from engine.io._samples import sample_path


@pytest.fixture(scope="module")
def result():
    return estimate(load_rated(sample_path("satimage_rated")), load_audit(sample_path("satimage_audit")))


def test_extended_curve_spans_both_sides_of_the_line_with_ordered_bands(result):
    curve = extended_curve(result, points=40)
    assert curve.below.any() and (~curve.below).any()
    assert np.all(np.diff(curve.thresholds) < 0)
    for rows in (curve.tp, curve.fp):
        assert np.all(rows[1] <= rows[0] + 1e-9) and np.all(rows[0] <= rows[2] + 1e-9)
    # TP and FP never decrease as the threshold falls (estimates)
    assert np.all(np.diff(curve.tp[0]) >= -1e-9) and np.all(np.diff(curve.fp[0]) >= -1e-9)
    at_line = curve.thresholds == result.review_threshold
    assert curve.tp[0][at_line][0] == result.above.tp


def test_figures_draw_the_band_the_curves_and_the_review_line(result):
    pn = audit_pn_figure(result)
    names = [t.name for t in pn.data]
    assert "rated (above the line)" in names and "estimated (below the line)" in names and "review line" in names
    assert any(t.fill == "tonexty" for t in pn.data)
    pr = audit_pr_figure(result)
    star = [t for t in pr.data if t.name and t.name.startswith("review line")][0]
    assert star.error_x.array[0] == pytest.approx(result.recall.upper - result.recall.estimate)
    bars = strata_figure(result)
    assert len(bars.data[0].x) == len(result.strata)
    assert sum(bars.data[1].y) == result.positives_found
