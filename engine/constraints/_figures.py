"""Plotly figures for constrained training (Goh et al., NIPS 2016).

Goh, Cotter, Gupta & Friedlander, *Satisfying Real-world Goals with Dataset
Constraints*, NIPS 2016: the majorization-minimization trace (Algorithm 1) and the
trade-offs of Section 4 (Figures 2 and 3).
"""

from __future__ import annotations

from html import escape

import plotly.graph_objects as go

from ..plotting import METHOD_COLOURS, layout

__all__ = ["constraint_trace_figure", "fairness_tradeoff_figure", "churn_tradeoff_figure"]


def constraint_trace_figure(model) -> go.Figure:
    """Majorization-minimization trace: ramp objective, deterministic error and each constraint (<= 0 met).

    Parameters
    ----------
    model : ConstrainedModel
        A model from :func:`~engine.constraints._solver.fit_constrained`: its ``trace_`` rows
        (``iteration``, ``objective``, ``error``, ``constraints``, ``multipliers``) and
        ``constraint_names``.

    Returns
    -------
    plotly.graph_objects.Figure
        One line per quantity against the iteration (a constraint's multiplier in its hover
        text), and the line y = 0.

    References
    ----------
    Goh, Cotter, Gupta & Friedlander (NIPS 2016), Algorithm 1.
    """
    rows = model.trace_
    it = [r["iteration"] for r in rows]
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=it,
            y=[r["objective"] for r in rows],
            mode="lines+markers",
            name="ramp objective",
            line=dict(color=METHOD_COLOURS["chosen"], width=3),
        )
    )
    fig.add_trace(
        go.Scatter(
            x=it,
            y=[r["error"] for r in rows],
            mode="lines+markers",
            name="training error (f ≥ 0)",
            line=dict(color=METHOD_COLOURS["curve"]),
        )
    )
    for j, name in enumerate(model.constraint_names):
        fig.add_trace(
            go.Scatter(
                x=it,
                y=[r["constraints"][j] for r in rows],
                mode="lines+markers",
                name=escape(f"constraint {j + 1}: {name} (ramp value, ≤ 0 met)"),
                line=dict(dash="dot"),
                customdata=[r["multipliers"][j] if j < len(r["multipliers"]) else None for r in rows],
                hovertemplate="iteration %{x}<br>value %{y:.4f}<br>multiplier %{customdata:.4g}<extra></extra>",
            )
        )
    fig.add_hline(y=0, line=dict(color="black", width=1))
    return layout(fig, "Majorization-minimization trace", "iteration", "value")


def fairness_tradeoff_figure(table) -> go.Figure:
    """Test error against the achieved female / male positive-rate ratio, one line per method.

    Parameters
    ----------
    table : pandas.DataFrame
        The table of :func:`~engine.constraints._experiments.fairness_sweep`.

    Returns
    -------
    plotly.graph_objects.Figure
        Per method a solid test line and a dotted training line (error against ratio), the
        required ratio in the hover text.

    References
    ----------
    Goh, Cotter, Gupta & Friedlander (NIPS 2016), Section 4.1 and Figure 2.
    """
    fig = go.Figure()
    colours = {
        "constrained (deterministic)": METHOD_COLOURS["chosen"],
        "constrained (randomised, expected)": METHOD_COLOURS["analytic-spline"],
        "SVM + per-group thresholds": METHOD_COLOURS["analytic-power"],
        "unconstrained SVM": METHOD_COLOURS["grid"],
    }
    for method, group in table.groupby("method", sort=False):
        for split, dash in (("test", "solid"), ("train", "dot")):
            fig.add_trace(
                go.Scatter(
                    x=group[f"{split}_ratio"],
                    y=group[f"{split}_error"],
                    mode="lines+markers",
                    name=f"{method} ({split})",
                    line=dict(color=colours.get(method), dash=dash),
                    customdata=group["required_ratio"],
                    hovertemplate="required ratio %{customdata}<br>achieved %{x:.3f}<br>error %{y:.4f}<extra></extra>",
                )
            )
    return layout(fig, "Error against fairness", "female / male positive-rate ratio", "error")


def churn_tradeoff_figure(table) -> go.Figure:
    """Achieved churn (train and test) and test error against the churn target.

    Parameters
    ----------
    table : pandas.DataFrame
        The table of :func:`~engine.constraints._experiments.churn_sweep`.

    Returns
    -------
    plotly.graph_objects.Figure
        Per method the achieved churn against the target (solid test, dotted training; the
        test error in the hover text), and the line churn = target.

    References
    ----------
    Goh, Cotter, Gupta & Friedlander (NIPS 2016), Section 4.2 and Figure 3.
    """
    fig = go.Figure()
    for method, group in table.dropna(subset=["train_churn"]).groupby("method", sort=False):
        for split, dash in (("test", "solid"), ("train", "dot")):
            fig.add_trace(
                go.Scatter(
                    x=group["churn_target"],
                    y=group[f"{split}_churn"],
                    mode="lines+markers",
                    name=f"{method}: churn ({split})",
                    line=dict(dash=dash),
                    customdata=group["test_error"],
                    hovertemplate="target %{x:.3f}<br>churn %{y:.4f}<br>test error %{customdata:.4f}<extra></extra>",
                )
            )
    lo, hi = float(table["churn_target"].min()), float(table["churn_target"].max())
    fig.add_trace(
        go.Scatter(x=[lo, hi], y=[lo, hi], mode="lines", name="churn = target", line=dict(color="black", width=1))
    )
    return layout(fig, "Churn against its target", "churn target", "achieved churn")
