"""Plotly figures of the operating point over time, its evidence, money and reviewers."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..plotting import METHOD_COLOURS, layout, thin
from .monitoring import Monitoring
from .reviewers import Backlog, FlaggedPerDay

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
    fig.add_trace(go.Scatter(x=x, y=high, mode="lines", line=dict(width=0), showlegend=False, hoverinfo="skip"))
    fig.add_trace(
        go.Scatter(
            x=x, y=low, mode="lines", line=dict(width=0), fill="tonexty", fillcolor=_BAND, name=name, hoverinfo="skip"
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

    def finite(v):  # "flag nothing" (+inf) cannot be drawn
        return [None if not np.isfinite(u) else u for u in v]

    fig = go.Figure()
    _band(
        fig,
        x,
        finite([p.operating_point.lower for p in result.periods]),
        finite([p.operating_point.upper for p in result.periods]),
        f"{result.level:.0%} confidence set",
    )
    est = finite([p.operating_point.estimate for p in result.periods])
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
    return layout(fig, title, f"{result.period} starting", "threshold (flag score ≥)")


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
