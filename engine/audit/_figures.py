"""Plotly figures of an audit: the PN and precision–recall curves extended below the line, and the strata.

Above the review line the curves are the rated documents' (exact; Robles et al., AAAI-MAKE
2020); below it they continue with the audit's estimates and an interval band
(:func:`engine.audit.at_thresholds`). The review line's operating point carries recall's
interval (its denominator holds the positives below the line).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from .._arguments import whole_number
from ..plotting import METHOD_COLOURS, layout, thin
from ..presentation import format_value
from ._estimate import AuditEstimate, at_thresholds

__all__ = ["ExtendedCurve", "extended_curve", "audit_pn_figure", "audit_pr_figure", "strata_figure"]

_BAND = "rgba(76,120,168,0.2)"


@dataclass(frozen=True)
class ExtendedCurve:
    """TP, FP, precision and recall with intervals at thresholds above and below the line (descending).

    Attributes
    ----------
    thresholds : numpy.ndarray
        Descending thresholds.
    below : numpy.ndarray of bool
        True for thresholds below the review line.
    tp, fp, precision, recall : numpy.ndarray, shape (3, n)
        Rows: estimate, lower, upper.
    level : float
        Interval level.
    """

    thresholds: np.ndarray
    below: np.ndarray
    tp: np.ndarray
    fp: np.ndarray
    precision: np.ndarray
    recall: np.ndarray
    level: float


def extended_curve(result: AuditEstimate, points: int = 80) -> ExtendedCurve:
    """The curve at about ``points`` thresholds: rated scores above the line, audited scores below it.

    Parameters
    ----------
    result : AuditEstimate
    points : int
        About how many thresholds (half above the line, half below; the line itself and the
        lowest audited score are always included).

    Returns
    -------
    ExtendedCurve
    """
    above = result.above.scores
    half = max(2, whole_number(points, "points", 2) // 2)
    audit = result.audit
    below = np.unique(np.r_[audit.scores[audit.labels >= 0], audit.lowers])[::-1]
    chosen = np.unique(np.r_[above[thin(above.size, half)], result.review_threshold, below[thin(below.size, half)]])
    chosen = chosen[::-1]
    rows = at_thresholds(result, chosen)

    def stack(name: str) -> np.ndarray:
        return np.array([[getattr(r, name).estimate, getattr(r, name).lower, getattr(r, name).upper] for r in rows]).T

    return ExtendedCurve(
        chosen,
        chosen < result.review_threshold,
        stack("tp"),
        stack("fp"),
        stack("precision"),
        stack("recall"),
        result.level,
    )


def _band(fig: go.Figure, x: np.ndarray, low: np.ndarray, high: np.ndarray, name: str) -> None:
    fig.add_trace(go.Scatter(x=x, y=high, mode="lines", line=dict(width=0), showlegend=False, hoverinfo="skip"))
    fig.add_trace(
        go.Scatter(
            x=x, y=low, mode="lines", line=dict(width=0), fill="tonexty", fillcolor=_BAND, name=name, hoverinfo="skip"
        )
    )


def audit_pn_figure(
    result: AuditEstimate, curve: ExtendedCurve | None = None, title: str = "PN curve extended below the review line"
) -> go.Figure:
    """TP against FP: rated above the line, estimated below it with a band of TP's interval.

    Parameters
    ----------
    result : AuditEstimate
    curve : ExtendedCurve, optional
        Computed when None.
    title : str

    Returns
    -------
    plotly.graph_objects.Figure
    """
    c = curve or extended_curve(result)
    fig = go.Figure()
    low = c.below | (c.thresholds == result.review_threshold)
    _band(fig, c.fp[0][low], c.tp[1][low], c.tp[2][low], f"{c.level * 100:g} % interval of TP below the line")
    for part, name, dash in ((~c.below, "rated (above the line)", None), (low, "estimated (below the line)", "dash")):
        fig.add_trace(
            go.Scatter(
                x=c.fp[0][part],
                y=c.tp[0][part],
                mode="lines+markers",
                name=name,
                marker=dict(size=4),
                line=dict(color=METHOD_COLOURS["curve"], dash=dash),
                customdata=np.column_stack([c.thresholds[part], c.tp[1][part], c.tp[2][part]]),
                hovertemplate="threshold %{customdata[0]:.6g}<br>TP %{y:,.0f} (%{customdata[1]:,.0f} – "
                "%{customdata[2]:,.0f})<br>FP %{x:,.0f}<extra></extra>",
            )
        )
    fig.add_trace(
        go.Scatter(
            x=[result.above.fp],
            y=[result.above.tp],
            mode="markers",
            name="review line",
            marker=dict(size=13, color=METHOD_COLOURS["chosen"], symbol="star", line=dict(color="black", width=1)),
            hovertemplate=f"review line {result.review_threshold:.6g}<br>TP %{{y:,.0f}}<br>"
            "FP %{x:,.0f}<extra></extra>",
        )
    )
    return layout(fig, title, "false positives (flagged negatives)", "true positives (flagged positives)")


def audit_pr_figure(
    result: AuditEstimate,
    curve: ExtendedCurve | None = None,
    title: str = "Precision and recall, with the audit's intervals",
) -> go.Figure:
    """Precision against recall at every threshold, a band of precision's interval, and the line's recall interval.

    Parameters
    ----------
    result : AuditEstimate
    curve : ExtendedCurve, optional
        Computed when None.
    title : str

    Returns
    -------
    plotly.graph_objects.Figure
    """
    c = curve or extended_curve(result)
    fig = go.Figure()
    _band(fig, c.recall[0], c.precision[1], c.precision[2], f"{c.level * 100:g} % interval of precision")
    fig.add_trace(
        go.Scatter(
            x=c.recall[0],
            y=c.precision[0],
            mode="lines+markers",
            name="precision–recall",
            marker=dict(size=4),
            line=dict(color=METHOD_COLOURS["curve"]),
            customdata=np.column_stack([c.thresholds, c.recall[1], c.recall[2], c.precision[1], c.precision[2]]),
            hovertemplate="threshold %{customdata[0]:.6g}<br>recall %{x:.1%} (%{customdata[1]:.1%} – "
            "%{customdata[2]:.1%})<br>precision %{y:.1%} (%{customdata[3]:.1%} – %{customdata[4]:.1%})<extra></extra>",
        )
    )
    r = result.recall
    precision = result.above.tp / (result.above.tp + result.above.fp)
    fig.add_trace(
        go.Scatter(
            x=[r.estimate],
            y=[precision],
            mode="markers",
            name=f"review line: recall {r.lower:.0%} – {r.upper:.0%}",
            marker=dict(size=13, color=METHOD_COLOURS["chosen"], symbol="star", line=dict(color="black", width=1)),
            error_x=dict(
                type="data",
                symmetric=False,
                array=[r.upper - r.estimate],
                arrayminus=[r.estimate - r.lower],
                color=METHOD_COLOURS["chosen"],
                thickness=2,
            ),
            hovertemplate=f"review line {result.review_threshold:.6g}<br>recall %{{x:.1%}} ({r.lower:.1%} – "
            f"{r.upper:.1%})<br>precision %{{y:.1%}}<extra></extra>",
        )
    )
    fig.update_xaxes(range=[0, 1.02], tickformat=".0%")
    fig.update_yaxes(range=[0, 1.02], tickformat=".0%")
    return layout(
        fig, title, "recall (share of all positives flagged)", "precision (share of flagged that are positive)"
    )


def strata_figure(result: AuditEstimate, title: str = "Missed positives by score stratum") -> go.Figure:
    """Estimated positives per stratum with their intervals, and the positives the audit found.

    Parameters
    ----------
    result : AuditEstimate
    title : str

    Returns
    -------
    plotly.graph_objects.Figure
    """
    # on two lines, never rotated into the legend; scores written out in full ("0.000046", not "4.6e-05")
    labels = [f"{format_value(s.lower, 'threshold')} –<br>{format_value(s.upper, 'threshold')}" for s in result.strata]
    est = np.array([s.prevalence.estimate * s.documents for s in result.strata])
    lo = np.array([s.prevalence.lower * s.documents for s in result.strata])
    hi = np.array([s.prevalence.upper * s.documents for s in result.strata])
    fig = go.Figure()
    fig.add_trace(
        go.Bar(
            x=labels,
            y=est,
            name="estimated positives",
            marker_color=METHOD_COLOURS["positive"],
            error_y=dict(type="data", symmetric=False, array=hi - est, arrayminus=est - lo),
            customdata=np.column_stack(
                [lo, hi, [s.documents for s in result.strata], [s.audited for s in result.strata]]
            ),
            hovertemplate="scores %{x}<br>%{y:,.0f} positives (%{customdata[0]:,.0f} – "
            "%{customdata[1]:,.0f})<br>%{customdata[3]:,} of %{customdata[2]:,} documents "
            "reviewed<extra></extra>",
        )
    )
    fig.add_trace(
        go.Bar(
            x=labels,
            y=[s.positives_found for s in result.strata],
            name="positives found",
            marker_color=METHOD_COLOURS["negative"],
            hovertemplate="scores %{x}<br>%{y:,} found<extra></extra>",
        )
    )
    fig.update_layout(barmode="group")
    fig.update_xaxes(tickangle=0)
    return layout(fig, title, "score stratum", "positives")
