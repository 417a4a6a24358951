"""Plotly figures for early exit (Wang, Gupta et al., *Quit When You Can*)."""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import plotly.graph_objects as go

from ..plotting import METHOD_COLOURS, FigureParts, layout, log_axis

__all__ = ["tradeoff_figure", "models_histogram_figure", "thresholds_figure", "fidelity_figure", "blank_figure"]


_TRADEOFF_COLOURS = {
    "qwyc": "#E45756",
    "natural": "#4C78A8",
    "random": "#BAB0AC",
    "individual_mse": "#72B7B2",
    "greedy_mse": "#54A24B",
    "fan": "#B279A2",
    "smaller": "#9D755D",
}


def tradeoff_figure(
    table, y: str = "test_disagreement_pct", x: str = "test_mean_models", title: str = "Speed against fidelity"
) -> go.Figure:
    """One line per method through its sweep (alpha, gamma or k); Pareto points marked.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`~engine.qwyc.tradeoff_curves`: one row per method and setting.
    y, x : str
        Columns drawn against each other (a disagreement or accuracy column, a mean-models column).
    title : str
        Figure title.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    labels = {
        "test_disagreement_pct": "% test decisions differing from the full ensemble",
        "test_accuracy": "test accuracy",
        "test_mean_models": "mean # base models evaluated (test)",
        "fit_disagreement_pct": "% fit decisions differing",
        "fit_mean_models": "mean # base models (fit)",
    }
    fig = go.Figure()
    for method, group in table.groupby("method", sort=False):
        group = group.sort_values(x)
        colour = _TRADEOFF_COLOURS.get(method, "#72B7B2")
        name = {"qwyc": "QWYC*", "fan": "Fan et al.", "smaller": "smaller ensemble"}.get(method, f"{method} + Alg. 2")
        fig.add_trace(
            go.Scatter(
                x=group[x],
                y=group[y],
                mode="lines+markers",
                name=name,
                line=dict(color=colour, width=3 if method == "qwyc" else 1.5),
                marker=dict(size=np.where(group["pareto"], 9, 5)),
                customdata=group["parameter"],
                hovertemplate=f"{name}<br>parameter %{{customdata}}<br>%{{x:.1f}} models<br>%{{y:.3f}}<extra></extra>",
            )
        )
    return layout(fig, title, labels.get(x, x), labels.get(y, y))


def models_histogram_figure(n_evaluated: np.ndarray, total: int) -> go.Figure:
    """How many base models each example needed: counted here, one bar per bin of ``max(1, total // 100)`` models.

    The bars are the counts, not the examples (a Plotly histogram would send every example to the
    browser and bin them there on every redraw); empty bins are left out (the count axis is logarithmic).

    Parameters
    ----------
    n_evaluated : numpy.ndarray of int, shape (N,)
        Base models evaluated per example (:meth:`~engine.qwyc.EarlyExitPolicy.predict`), each in 1..total.
    total : int
        Base models in the ensemble (T).

    Returns
    -------
    plotly.graph_objects.Figure
    """
    n_evaluated = np.asarray(n_evaluated, dtype=np.int64)
    size = max(1, total // 100)
    counts = np.bincount((n_evaluated - 1) // size, minlength=(total - 1) // size + 1)
    shown = np.flatnonzero(counts)
    low, high = shown * size + 1, np.minimum((shown + 1) * size, total)
    models = [f"{a}" if a == b else f"{a}–{b}" for a, b in zip(low.tolist(), high.tolist())]
    bars = dict(
        type="bar",
        x=(low + high) / 2,
        y=counts[shown],
        width=high - low + 1,
        customdata=models,
        marker=dict(color=METHOD_COLOURS["curve"], line=dict(width=0)),
        hovertemplate="%{customdata} models<br>%{y:,} examples<extra></extra>",
    )
    mean = float(np.mean(n_evaluated))
    # the mean as Plotly's add_vline draws it, added as JSON to the layout validated once (FigureParts)
    line = dict(
        type="line",
        x0=mean,
        x1=mean,
        xref="x",
        y0=0,
        y1=1,
        yref="y domain",
        line=dict(color=METHOD_COLOURS["chosen"], dash="dot"),
    )
    label = dict(
        showarrow=False, text=f"mean {mean:.1f}", x=mean, xanchor="left", xref="x", y=1, yanchor="top", yref="y domain"
    )
    return _histogram_parts().draw([bars], [line], [label])


@lru_cache(maxsize=1)
def _histogram_parts() -> FigureParts:
    """:func:`models_histogram_figure`'s layout, validated once per process."""
    fig = layout(
        go.Figure(), "Base models evaluated per example (test)", "# base models evaluated", "examples (log scale)"
    )
    fig.update_layout(bargap=0)
    log_axis(fig)  # most examples leave in the first few steps; the long tail stays visible
    return FigureParts.of(fig)


#: steps of an order up to which :func:`thresholds_figure` marks each step
MARKED_STEPS = 100


def thresholds_figure(policy, max_steps: int | None = None) -> go.Figure:
    """Early-exit thresholds after each step of the order (finite ones only), with the model evaluated.

    Each threshold is marked when a side has at most :data:`MARKED_STEPS` finite ones; more are drawn as a line.

    Parameters
    ----------
    policy : EarlyExitPolicy
        The policy (Wang, Gupta & You 2018): order and ε⁻ / ε⁺ after each step.
    max_steps : int, optional
        Draw only the first steps.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    steps = np.arange(1, len(policy.order) + 1)
    lo, hi = np.asarray(policy.eps_minus, float), np.asarray(policy.eps_plus, float)
    if max_steps is not None:
        steps, lo, hi = steps[:max_steps], lo[:max_steps], hi[:max_steps]
    traces = []
    for values, name, colour in (
        (hi, "ε⁺ (exit positive above)", METHOD_COLOURS["positive"]),
        (lo, "ε⁻ (exit negative below)", METHOD_COLOURS["negative"]),
    ):
        finite = np.isfinite(values)
        # a marker per threshold up to MARKED_STEPS; beyond, lines only: the markers of hundreds of steps overlap
        # into a thick line anyway, and styling each one is most of the browser's work when the chart is redrawn
        mode = "markers+lines" if finite.sum() <= MARKED_STEPS else "lines"
        traces.append(
            dict(
                type="scatter",
                x=steps[finite],
                y=values[finite],
                mode=mode,
                name=name,
                marker=dict(color=colour, size=5),
                line=dict(color=colour, width=1),
                customdata=np.asarray(policy.order)[: steps.size][finite],
                hovertemplate="step %{x}<br>model %{customdata}<br>threshold %{y:.4g}<extra></extra>",
            )
        )
    beta = float(policy.threshold)  # β as Plotly's add_hline draws it
    line = dict(
        type="line", x0=0, x1=1, xref="x domain", y0=beta, y1=beta, yref="y", line=dict(color="black", dash="dot")
    )
    label = dict(
        showarrow=False,
        text="decision threshold β",
        x=1,
        xanchor="right",
        xref="x domain",
        y=beta,
        yanchor="bottom",
        yref="y",
    )
    return _thresholds_parts().draw(traces, [line], [label])


@lru_cache(maxsize=1)
def _thresholds_parts() -> FigureParts:
    """:func:`thresholds_figure`'s layout, validated once per process."""
    return FigureParts.of(
        layout(go.Figure(), "Order and early-exit thresholds", "step (models evaluated so far)", "running score")
    )


def fidelity_figure(curve, title: str = "Disagreement on new rows against trees evaluated") -> go.Figure:
    """Test disagreement (with its 95 % interval) against mean trees: QWYC with a fidelity promise per D,
    and LightGBM's pred_early_stop over its (margin, freq) grid; log-scaled disagreement.

    Parameters
    ----------
    curve : pandas.DataFrame
        :func:`~engine.qwyc.fidelity_curve`: one row per method and setting.
    title : str
        Figure title.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    fig = go.Figure()
    styles = {
        "QWYC with fidelity promise": ("#E45756", "lines+markers", "circle"),
        "LightGBM pred_early_stop": ("#4C78A8", "markers", "x"),
    }
    for method, part in curve.groupby("method", sort=False):
        colour, mode, symbol = styles.get(method, ("#72B7B2", "markers", "square"))
        part = part.sort_values("mean trees (test)")
        pct = 100 * part["test disagreement"]
        fig.add_trace(
            go.Scatter(
                x=part["mean trees (test)"],
                y=pct.clip(lower=1e-3),
                mode=mode,
                name=method,
                marker=dict(color=colour, symbol=symbol, size=8),
                line=dict(color=colour),
                error_y=dict(
                    type="data",
                    symmetric=False,
                    array=100 * part["interval high"] - pct,
                    arrayminus=pct - 100 * part["interval low"],
                    thickness=1,
                ),
                customdata=part[["setting"]].to_numpy(),
                hovertemplate="%{customdata[0]}<br>%{x:.1f} trees<br>%{y:.3f} % disagree<extra></extra>",
            )
        )
    promised = curve.dropna(subset=["promised D"])
    if len(promised):
        fig.add_trace(
            go.Scatter(
                x=promised["mean trees (test)"],
                y=100 * promised["promised D"],
                mode="markers",
                name="promised D",
                marker=dict(symbol="line-ew-open", size=14, color="#E45756"),
            )
        )
    log_axis(fig)
    return layout(fig, title, "mean trees evaluated per row (test)", "test rows deciding unlike the full model (%)")


def blank_figure() -> go.Figure:
    """An empty figure ten pixels high (Plotly's least) with nothing to see, drawn while a page computes its first
    results.

    A browser loads its Plotly library (4.7 MB of JavaScript, about 1-2 s to fetch and run on a busy
    machine) only when the first chart arrives; a page whose charts come after seconds of work draws
    this first, so that the library loads during the work instead of after it.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    fig = go.Figure(go.Scatter(x=[], y=[], hoverinfo="skip", showlegend=False))
    fig.update_layout(
        height=10,
        margin=dict(l=0, r=0, t=0, b=0),
        xaxis=dict(visible=False),
        yaxis=dict(visible=False),
        paper_bgcolor="rgba(0,0,0,0)",
        plot_bgcolor="rgba(0,0,0,0)",
    )
    return fig
