"""Plotly figures for batch decisions (Natarajan et al., ICML 2016)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..plotting import METHOD_COLOURS, layout

__all__ = ["expected_loss_figure", "batch_items_figure", "baselines_figure"]


def expected_loss_figure(decision, early=None, title: str = "Expected loss of flagging the top k") -> go.Figure:
    """Expected loss against k with the optimum (and the paper's early-stop point if given).

    Parameters
    ----------
    decision : Decision
        The optimal decision: expected loss of flagging the top k for every k (Natarajan et al. 2016,
        Algorithm 1) and the minimising k.
    early : Decision, optional
        The paper's early-stop decision (first k with L_k <= L_{k+1}), marked when given.
    title : str
        Figure title.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    k = np.arange(decision.losses.size)
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=k,
            y=decision.losses,
            mode="lines",
            name=f"E[{decision.loss_name} loss]",
            line=dict(color=METHOD_COLOURS["curve"]),
            hovertemplate="k = %{x}<br>expected loss %{y:.6f}<extra></extra>",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=[decision.k],
            y=[decision.value],
            mode="markers",
            name=f"optimum: k = {decision.k}",
            marker=dict(size=14, symbol="star", color=METHOD_COLOURS["chosen"], line=dict(color="black", width=1)),
        )
    )
    if early is not None and early.k != decision.k:
        fig.add_trace(
            go.Scatter(
                x=[early.k],
                y=[early.value],
                mode="markers",
                name=f"paper's early stop: k = {early.k}",
                marker=dict(size=12, symbol="x", color=METHOD_COLOURS["what-if"]),
            )
        )
    return layout(fig, title, "k (items flagged, highest probability first)", "expected loss")


def batch_items_figure(eta: np.ndarray, decision) -> go.Figure:
    """The batch's probabilities in decreasing order, decided items highlighted.

    Parameters
    ----------
    eta : numpy.ndarray of float, shape (n,)
        The batch's calibrated probabilities, in input order.
    decision : Decision
        Its decision (``order``: items by decreasing probability; the first ``k`` flagged).

    Returns
    -------
    plotly.graph_objects.Figure
    """
    e = np.asarray(eta)[decision.order]
    rank = np.arange(1, e.size + 1)
    chosen = rank <= decision.k
    fig = go.Figure()
    for flag, name, colour in (
        (True, "flagged", METHOD_COLOURS["positive"]),
        (False, "not flagged", METHOD_COLOURS["negative"]),
    ):
        sel = chosen == flag
        fig.add_trace(
            go.Bar(
                x=rank[sel],
                y=e[sel],
                name=name,
                marker_color=colour,
                customdata=decision.order[sel] + 1,
                hovertemplate="rank %{x}<br>item %{customdata}<br>probability %{y:.4f}<extra></extra>",
            )
        )
    fig.update_layout(bargap=0)
    return layout(fig, "Items by probability", "rank in the batch", "probability of being positive")


def baselines_figure(summary) -> go.Figure:
    """Mean test loss per method with standard-error bars.

    Parameters
    ----------
    summary : pandas.DataFrame
        ``BaselineComparison.summary``: columns ``method``, ``mean_test_loss`` and ``std_error``.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    fig = go.Figure(
        go.Bar(
            x=summary["method"],
            y=summary["mean_test_loss"],
            error_y=dict(type="data", array=summary["std_error"]),
            marker_color=[METHOD_COLOURS["grid"], METHOD_COLOURS["analytic-power"], METHOD_COLOURS["chosen"]][
                : len(summary)
            ],
            hovertemplate="%{x}<br>mean loss %{y:.4f}<extra></extra>",
        )
    )
    return layout(fig, "Mean test loss over batches", "method", "mean loss (lower is better)")
