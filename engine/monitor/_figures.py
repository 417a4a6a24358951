"""Plotly figures of the operating point over time, its evidence, money and reviewers."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..plotting import METHOD_COLOURS, layout, thin
from ._monitoring import Monitoring
from ._reviewers import Backlog, FlaggedPerDay

__all__ = [
    "marginal_precision_over_time_figure",
    "threshold_over_time_figure",
    "evidence_figure",
    "money_over_time_figure",
    "flagged_per_day_figure",
    "backlog_figure",
]

_BAND = "rgba(76,120,168,0.2)"
_ALERT = "#E45756"


def _band(fig: go.Figure, x, low, high, name: str) -> None:
    """The interval as filled polygons, one per run of periods where both bounds are finite (a period without
    a bound is a gap, never a fill across it)."""
    lo, hi = np.asarray(low, dtype=np.float64), np.asarray(high, dtype=np.float64)
    ok = np.isfinite(lo) & np.isfinite(hi)
    xs, ys = [], []
    for run in np.split(np.flatnonzero(ok), np.flatnonzero(np.diff(np.flatnonzero(ok)) > 1) + 1):
        if run.size:
            xs += [x[i] for i in run] + [x[i] for i in run[::-1]] + [None]
            ys += [float(hi[i]) for i in run] + [float(lo[i]) for i in run[::-1]] + [None]
    fig.add_trace(
        go.Scatter(
            x=xs,
            y=ys,
            mode="lines",
            fill="toself",
            fillcolor=_BAND,
            line=dict(width=1, color=_BAND),
            name=name,
            hoverinfo="skip",
        )
    )


def _unbounded(fig: go.Figure, x, low, high, top: float) -> None:
    """Periods whose confidence set reaches "flag nothing" (upper bound +inf): an open dotted band from the lower
    bound to the top of the chart, ending in an arrow, and said in the hover text."""
    open_ = [i for i, (lo, hi) in enumerate(zip(low, high)) if np.isposinf(hi) and np.isfinite(lo)]
    if not open_:
        return
    fig.add_trace(
        go.Scatter(
            x=[v for i in open_ for v in (x[i], x[i], None)],
            y=[v for i in open_ for v in (float(low[i]), top, None)],
            mode="lines",
            line=dict(color="rgba(76,120,168,0.6)", width=2, dash="dot"),
            name="not bounded above (flagging nothing is plausible)",
            hoverinfo="skip",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=[x[i] for i in open_],
            y=[top] * len(open_),
            mode="markers",
            marker=dict(symbol="arrow-up", size=10, color="rgba(76,120,168,0.8)"),
            showlegend=False,
            text=[f"from {float(low[i]):.4g}, not bounded above" for i in open_],
            hovertemplate="%{x}<br>%{text}<extra></extra>",
        )
    )


def _alert_marks(fig: go.Figure, result: Monitoring, y) -> None:
    flagged = [i for i, p in enumerate(result.periods) if p.alert]
    if flagged:
        fig.add_trace(
            go.Scatter(
                x=[result.periods[i].start for i in flagged],
                y=[y[i] for i in flagged],
                mode="markers",
                name="alert",
                marker=dict(color=_ALERT, size=11, symbol="x"),
                text=[result.periods[i].reason for i in flagged],
                hovertemplate="%{x}<br>%{text}<extra></extra>",
            )
        )


def marginal_precision_over_time_figure(
    result: Monitoring, title: str = "Marginal precision at the deployed threshold"
) -> go.Figure:
    """Each period's marginal precision at T with its interval, the target, and the alerts.

    Parameters
    ----------
    result : Monitoring
    title : str, optional

    Returns
    -------
    plotly.graph_objects.Figure
    """
    x = [p.start for p in result.periods]
    est = [p.marginal_precision.estimate for p in result.periods]
    fig = go.Figure()
    _band(
        fig,
        x,
        [p.marginal_precision.lower for p in result.periods],
        [p.marginal_precision.upper for p in result.periods],
        f"{result.level:.0%} interval",
    )
    fig.add_trace(
        go.Scatter(
            x=x,
            y=est,
            mode="lines+markers",
            name="marginal precision at T",
            line=dict(color=METHOD_COLOURS["hull"]),
            hovertemplate="%{x}<br>marginal precision %{y:.3f}<extra></extra>",
        )
    )
    fig.add_hline(y=result.target, line=dict(color="black", dash="dash"), annotation_text=f"target {result.target:.3g}")
    _alert_marks(fig, result, est)
    return layout(fig, title, f"{result.period} starting", "marginal precision")


def threshold_over_time_figure(
    result: Monitoring, title: str = "Re-solved operating point against the deployed threshold"
) -> go.Figure:
    """Each period's own operating point for the target with its interval, against the deployed T.

    Parameters
    ----------
    result : Monitoring
    title : str, optional

    Returns
    -------
    plotly.graph_objects.Figure
    """
    x = [p.start for p in result.periods]

    def finite(v):  # "flag nothing" (+inf) cannot be drawn as a point
        return [None if not np.isfinite(u) else u for u in v]

    low = [p.operating_point.lower for p in result.periods]
    high = [p.operating_point.upper for p in result.periods]
    est = finite([p.operating_point.estimate for p in result.periods])
    drawn = [v for v in [*finite(low), *finite(high), *est, result.threshold] if v is not None]
    top = max(drawn) + 0.05 * (max(drawn) - min(drawn) or 1.0)  # the chart's top: "above every score shown"
    fig = go.Figure()
    _band(fig, x, low, high, f"{result.level:.0%} confidence set")
    _unbounded(fig, x, low, high, top)
    nothing = [i for i, p in enumerate(result.periods) if np.isposinf(p.operating_point.estimate)]
    if nothing:
        fig.add_trace(
            go.Scatter(
                x=[x[i] for i in nothing],
                y=[top] * len(nothing),
                mode="markers",
                marker=dict(symbol="triangle-up", size=11, color=METHOD_COLOURS["chosen"]),
                name="operating point: flag nothing",
                hovertemplate="%{x}<br>the target is met by no document: flag nothing<extra></extra>",
            )
        )
    fig.add_trace(
        go.Scatter(
            x=x,
            y=est,
            mode="lines+markers",
            name=f"operating point for m = {result.target:.3g}",
            line=dict(color=METHOD_COLOURS["chosen"]),
            hovertemplate="%{x}<br>threshold %{y:.4g}<extra></extra>",
        )
    )
    fig.add_hline(
        y=result.threshold, line=dict(color="black", dash="dash"), annotation_text=f"deployed {result.threshold:.4g}"
    )
    _alert_marks(fig, result, [result.threshold] * len(x))
    fig = layout(fig, title, f"{result.period} starting", "threshold (flag score ≥)")
    if nothing or any(np.isposinf(h) for h in high):
        fig.update_yaxes(range=[min(drawn) - 0.05 * (top - min(drawn)), top])
    return fig


def evidence_figure(
    result: Monitoring, title: str = "Evidence that the threshold no longer meets the target"
) -> go.Figure:
    """The detector's e-value after each period on a log scale, the alarm bar 1/α, and the per-period test.

    Parameters
    ----------
    result : Monitoring
    title : str, optional

    Returns
    -------
    plotly.graph_objects.Figure
    """
    x = [p.start for p in result.periods]
    log10 = [p.log_evidence / np.log(10) for p in result.periods]
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=x,
            y=log10,
            mode="lines+markers",
            name="e-detector (anytime-valid)",
            line=dict(color=METHOD_COLOURS["curve"]),
            hovertemplate="%{x}<br>log10 e-value %{y:.2f}<extra></extra>",
        )
    )
    naive = [i for i, p in enumerate(result.periods) if p.naive_alert]
    fig.add_trace(
        go.Scatter(
            x=[x[i] for i in naive],
            y=[log10[i] for i in naive],
            mode="markers",
            name="a per-period test alone would alert",
            marker=dict(color="#BAB0AC", size=8),
        )
    )
    fig.add_hline(
        y=np.log10(1 / (1 - result.level)),
        line=dict(color=_ALERT, dash="dash"),
        annotation_text=f"alarm: e-value ≥ {1 / (1 - result.level):.0f}",
    )
    return layout(fig, title, f"{result.period} starting", "log10 e-value")


def money_over_time_figure(result: Monitoring, currency: str = "", title: str = "Net value per day") -> go.Figure:
    """Each period's net value per day (value caught minus review and false-positive costs).

    Parameters
    ----------
    result : Monitoring
        With :attr:`~Monitoring.economics` set.
    currency : str, optional
        Prefix shown on the axis.
    title : str, optional

    Returns
    -------
    plotly.graph_objects.Figure
    """
    money = result.money()
    x = [p.start for p in result.periods]
    fig = go.Figure(
        go.Bar(
            x=x,
            y=[m.net_per_day for m in money],
            name="net value per day",
            marker_color=[_ALERT if p.alert else METHOD_COLOURS["curve"] for p in result.periods],
            hovertemplate="%{x}<br>net per day %{y:,.0f}<extra></extra>",
        )
    )
    return layout(fig, title, f"{result.period} starting", f"net value per day {currency}".strip())


def flagged_per_day_figure(
    load: FlaggedPerDay,
    *,
    capacity: float | None = None,
    threshold: float | None = None,
    title: str = "Flagged documents per day",
) -> go.Figure:
    """Flagged per day against the threshold, with the team's capacity and the deployed threshold.

    Parameters
    ----------
    load : FlaggedPerDay
    capacity : float, optional
        Reviews per day.
    threshold : float, optional
        The deployed threshold.
    title : str, optional

    Returns
    -------
    plotly.graph_objects.Figure
    """
    keep = thin(load.thresholds.size, 1500)
    fig = go.Figure(
        go.Scatter(
            x=load.thresholds[keep],
            y=load.per_day[keep],
            mode="lines",
            line_shape="hv",
            name="flagged per day",
            line=dict(color=METHOD_COLOURS["curve"]),
            hovertemplate="threshold %{x:.4g}<br>%{y:,.1f} per day<extra></extra>",
        )
    )
    if capacity is not None:
        fig.add_hline(y=capacity, line=dict(color=_ALERT, dash="dash"), annotation_text=f"capacity {capacity:,.0f}/day")
    if threshold is not None:
        fig.add_vline(x=threshold, line=dict(color="black", dash="dot"), annotation_text=f"deployed {threshold:.4g}")
    return layout(fig, title, "threshold (flag score ≥)", "documents per day")


def backlog_figure(queue: Backlog, title: str = "Review backlog") -> go.Figure:
    """Flagged per day, the capacity, and the documents waiting at the end of each day.

    Parameters
    ----------
    queue : Backlog
    title : str, optional

    Returns
    -------
    plotly.graph_objects.Figure
    """
    x = queue.days.astype(str)
    fig = go.Figure()
    fig.add_trace(go.Bar(x=x, y=queue.flagged, name="flagged", marker_color="#BAB0AC"))
    fig.add_trace(
        go.Scatter(x=x, y=queue.queue, mode="lines", name="waiting at the end of the day", line=dict(color=_ALERT))
    )
    fig.add_hline(
        y=queue.capacity, line=dict(color="black", dash="dash"), annotation_text=f"capacity {queue.capacity:,.0f}/day"
    )
    return layout(fig, title, "day", "documents")
