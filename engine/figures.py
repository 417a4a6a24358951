"""Plotly figure builders: the app, the CLI and exported reports all draw with these.

Compute elsewhere, draw here (the scikit-learn Display split): every builder
takes engine results and returns a ``plotly.graph_objects.Figure``. Colours are
fixed per method so a method looks the same on every page and in every report.
"""

from __future__ import annotations

from html import escape
from typing import Sequence

import numpy as np
import plotly.graph_objects as go

from .grid import ThresholdGrid
from .paths import Frontier, GraphPathBootstrap, ThresholdPath
from .pn import Bootstrap, Hull, OperatingPoint, PNCurve

__all__ = [
    "METHOD_COLOURS",
    "method_colour",
    "pn_figure",
    "marginal_precision_figure",
    "score_histogram_figure",
    "threshold_space_figure",
    "paths_pn_figure",
    "expected_loss_figure",
    "batch_items_figure",
    "baselines_figure",
    "tradeoff_figure",
    "models_histogram_figure",
    "thresholds_figure",
    "constraint_trace_figure",
    "fairness_tradeoff_figure",
    "churn_tradeoff_figure",
]

METHOD_COLOURS = {
    "curve": "#4C78A8",
    "hull": "#F58518",
    "chosen": "#E45756",
    "what-if": "#72B7B2",
    "graph": "#E45756",
    "analytic-power": "#4C78A8",
    "analytic-spline": "#54A24B",
    "best grid point": "#B279A2",
    "frontier": "#9D755D",
    "grid": "#BAB0AC",
    "positive": "#E45756",
    "negative": "#4C78A8",
}


def method_colour(method: str) -> str:
    return METHOD_COLOURS.get(method, "#72B7B2")


def _layout(fig: go.Figure, title: str, x: str, y: str) -> go.Figure:
    # legend under the axis title so long legends never cover the figure title
    # Plotly renders a subset of HTML (links included) in titles: user-supplied names are escaped
    fig.update_layout(title=escape(title), xaxis_title=escape(x), yaxis_title=escape(y), template="plotly_white",
                      hovermode="closest",
                      legend=dict(orientation="h", yanchor="top", y=-0.18, xanchor="left", x=0),
                      margin=dict(l=60, r=20, t=60, b=40), height=560)
    return fig


def _thin(n: int, max_points: int) -> np.ndarray:
    """Indices that keep at most ``max_points`` of n, always the first and last (browsers choke on 1e6 points)."""
    if n <= max_points:
        return np.arange(n)
    return np.unique(np.r_[np.linspace(0, n - 1, max_points).astype(np.int64), n - 1])


def pn_figure(curve: PNCurve, hull: Hull, points: Sequence[tuple[str, OperatingPoint]] = (),
              max_points: int = 4000, title: str = "PN curve") -> go.Figure:
    """TP against FP with the upper hull and marked operating points.

    Hover on the curve shows threshold, TP, FP, precision and hull marginal precision.
    """
    keep = _thin(curve.thresholds.size, max_points)
    prec = curve.precision[keep]
    mp = hull.mp_at_threshold[keep]
    fig = go.Figure()
    fig.add_trace(go.Scattergl(
        x=curve.fp[keep], y=curve.tp[keep], mode="lines", name="PN curve", line=dict(color=METHOD_COLOURS["curve"]),
        customdata=np.column_stack([curve.thresholds[keep], prec, mp]),
        hovertemplate="threshold %{customdata[0]:.6g}<br>TP %{y:,.6g}<br>FP %{x:,.6g}"
                      "<br>precision %{customdata[1]:.3f}<br>marginal precision %{customdata[2]:.3f}<extra></extra>"))
    edge_mp = np.r_[hull.edge_mp, np.nan]
    fig.add_trace(go.Scatter(
        x=hull.fp, y=hull.tp, mode="lines+markers", name="upper hull", marker=dict(size=4),
        line=dict(color=METHOD_COLOURS["hull"], dash="dash"),
        customdata=np.column_stack([hull.thresholds, edge_mp]),
        hovertemplate="hull vertex<br>threshold %{customdata[0]:.6g}<br>TP %{y:,.6g}<br>FP %{x:,.6g}"
                      "<br>marginal precision below %{customdata[1]:.3f}<extra></extra>"))
    for label, op in points:
        colour = METHOD_COLOURS["chosen"] if label == "chosen" else METHOD_COLOURS["what-if"]
        fig.add_trace(go.Scatter(
            x=[op.fp], y=[op.tp], mode="markers", name=f"{label}: m = {op.target:.3g}",
            marker=dict(size=13, color=colour, symbol="star", line=dict(color="black", width=1)),
            hovertemplate=(f"{label}<br>threshold {np.ravel(op.threshold)[0]:.6g}<br>TP %{{y:,.6g}}<br>FP %{{x:,.6g}}"
                           f"<br>precision {op.precision:.3f}<extra></extra>")))
    return _layout(fig, title, "false positives (rated negatives flagged)", "true positives (rated positives flagged)")


def marginal_precision_figure(hull: Hull, target: float, chosen: OperatingPoint | None = None,
                              boot: Bootstrap | None = None, max_points: int = 4000,
                              title: str = "Marginal precision against threshold") -> go.Figure:
    """Hull marginal precision (PAV fit of label on score) against threshold, band and target line."""
    th = hull.curve.thresholds
    keep = _thin(th.size, max_points)
    fig = go.Figure()
    if boot is not None:
        bt = boot.band_thresholds
        fig.add_trace(go.Scatter(x=bt, y=boot.mp_band[2], mode="lines", line=dict(width=0), line_shape="hv",
                                 showlegend=False, hoverinfo="skip"))
        fig.add_trace(go.Scatter(
            x=bt, y=boot.mp_band[0], mode="lines", line=dict(width=0), fill="tonexty", line_shape="hv",
            fillcolor="rgba(76,120,168,0.2)", name=f"{int(boot.level * 100)} % bootstrap band ({boot.n_boot} replicates)",
            customdata=np.column_stack([boot.mp_band[2], boot.n_at_or_above]),
            hovertemplate="threshold %{x:.6g}<br>band %{y:.3f} – %{customdata[0]:.3f}"
                          "<br>%{customdata[1]:,} rated documents at or above<extra></extra>"))
    fig.add_trace(go.Scatter(x=th[keep], y=hull.mp_at_threshold[keep], mode="lines", line_shape="hv",
                             name="marginal precision (hull)", line=dict(color=METHOD_COLOURS["curve"]),
                             hovertemplate="threshold %{x:.6g}<br>marginal precision %{y:.3f}<extra></extra>"))
    fig.add_hline(y=target, line=dict(color=METHOD_COLOURS["chosen"], dash="dot"),
                  annotation_text=f"target {target:.3g}", annotation_position="top left")
    if chosen is not None and np.isfinite(np.ravel(chosen.threshold)[0]):
        fig.add_vline(x=float(np.ravel(chosen.threshold)[0]), line=dict(color=METHOD_COLOURS["chosen"]),
                      annotation_text="chosen threshold", annotation_position="top right")
    fig.update_yaxes(range=[0, 1.02])
    return _layout(fig, title, "threshold (score)", "marginal precision dTP / (dTP + dFP)")


def score_histogram_figure(scores: np.ndarray, labels: np.ndarray, name: str, bins: int = 60) -> go.Figure:
    """Histogram of one classifier's scores split by rated label."""
    edges = np.histogram_bin_edges(scores, bins=bins)
    fig = go.Figure()
    for value, label in ((1, "positive"), (0, "negative")):
        counts, _ = np.histogram(scores[labels == value], bins=edges)
        fig.add_trace(go.Bar(x=0.5 * (edges[:-1] + edges[1:]), y=counts, name=f"rated {label}",
                             marker_color=METHOD_COLOURS[label], opacity=0.75,
                             hovertemplate="score %{x:.4g}<br>%{y:,} documents<extra></extra>"))
    fig.update_layout(barmode="overlay")
    return _layout(fig, f"Scores of {name} by rated label", "score", "documents")


def threshold_space_figure(grid: ThresholdGrid, paths: Sequence[ThresholdPath] = (),
                           points: Sequence[tuple[str, OperatingPoint]] = (), *, value: str = "tp",
                           dims: tuple[int, int] = (0, 1), fixed: dict[int, int] | None = None,
                           boot: GraphPathBootstrap | None = None) -> go.Figure:
    """Heatmap of TP (or precision) over a 2-D slice of the grid with paths and points drawn on it.

    For k > 2, ``fixed`` gives the grid index of every other axis (default: the
    lowest threshold); paths are projected onto the two shown axes.
    """
    a, b = dims
    index: list = []
    for j in range(grid.k):
        index.append(slice(None) if j in dims else (fixed or {}).get(j, 0))
    data = grid.tp if value == "tp" else grid.precision
    z = data[tuple(index)]
    if a > b:
        z = z.T
    fig = go.Figure(go.Heatmap(
        x=grid.axes[b], y=grid.axes[a], z=z, colorscale="Viridis", colorbar=dict(title=value.upper() if value == "tp" else "precision"),
        hovertemplate=f"{escape(grid.names[a])} %{{y:.5g}}<br>{escape(grid.names[b])} %{{x:.5g}}<br>{value} "
                      f"%{{z:.4g}}<extra></extra>"))
    if boot is not None:
        freq = boot.visit_frequency.max(axis=tuple(j for j in range(grid.k) if j not in dims)) if grid.k > 2 else boot.visit_frequency
        ii, jj = np.nonzero(freq if a < b else freq.T)
        fig.add_trace(go.Scatter(x=grid.axes[b][jj], y=grid.axes[a][ii], mode="markers", name="bootstrap graph paths",
                                 marker=dict(size=5, color="white", opacity=0.5),
                                 hovertemplate="visited by bootstrap paths<extra></extra>"))
    for p in paths:
        fig.add_trace(go.Scatter(x=p.thresholds[:, b], y=p.thresholds[:, a], mode="lines", name=f"{p.method} path",
                                 line=dict(color=method_colour(p.method), width=3)))
    for label, op in points:
        th = np.ravel(op.threshold)
        fig.add_trace(go.Scatter(x=[th[b]], y=[th[a]], mode="markers", name=label,
                                 marker=dict(size=14, symbol="star", color=method_colour(label),
                                             line=dict(color="black", width=1))))
    return _layout(fig, "Threshold space", f"threshold of {grid.names[b]}", f"threshold of {grid.names[a]}")


def paths_pn_figure(grid: ThresholdGrid, front: Frontier, paths: Sequence[ThresholdPath] = (),
                    points: Sequence[tuple[str, OperatingPoint]] = (), max_points: int = 20000) -> go.Figure:
    """PN view: every grid point faint, the Pareto frontier, each path's PN curve and operating point."""
    fp = grid.fp.ravel()
    tp = grid.tp.ravel()
    keep = _thin(fp.size, max_points)
    fig = go.Figure()
    fig.add_trace(go.Scattergl(x=fp[keep], y=tp[keep], mode="markers", name="grid points",
                               marker=dict(size=3, color=METHOD_COLOURS["grid"], opacity=0.35), hoverinfo="skip"))
    fig.add_trace(go.Scatter(x=front.fp, y=front.tp, mode="lines", line_shape="hv", name="Pareto frontier",
                             line=dict(color=METHOD_COLOURS["frontier"], dash="dot")))
    for p in paths:
        th = p.thresholds
        text = ["<br>".join(f"{escape(n)} {v:.5g}" for n, v in zip(grid.names, row)) for row in th[_thin(len(th), 3000)]]
        sel = _thin(len(th), 3000)
        fig.add_trace(go.Scatter(x=p.fp[sel], y=p.tp[sel], mode="lines", name=f"{p.method} (area {p.auc:,.0f})",
                                 line=dict(color=method_colour(p.method), width=2.5), text=text,
                                 hovertemplate="%{text}<br>TP %{y:,.5g}<br>FP %{x:,.5g}<extra></extra>"))
    for label, op in points:
        fig.add_trace(go.Scatter(x=[op.fp], y=[op.tp], mode="markers", name=f"{label} operating point",
                                 marker=dict(size=14, symbol="star", color=method_colour(label),
                                             line=dict(color="black", width=1))))
    return _layout(fig, "PN view of the joint thresholds", "false positives", "true positives")


def expected_loss_figure(decision, early=None, title: str = "Expected loss of flagging the top k") -> go.Figure:
    """Expected loss against k with the optimum (and the paper's early-stop point if given)."""
    k = np.arange(decision.losses.size)
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=k, y=decision.losses, mode="lines", name=f"E[{decision.loss_name} loss]",
                             line=dict(color=METHOD_COLOURS["curve"]),
                             hovertemplate="k = %{x}<br>expected loss %{y:.6f}<extra></extra>"))
    fig.add_trace(go.Scatter(x=[decision.k], y=[decision.value], mode="markers", name=f"optimum: k = {decision.k}",
                             marker=dict(size=14, symbol="star", color=METHOD_COLOURS["chosen"],
                                         line=dict(color="black", width=1))))
    if early is not None and early.k != decision.k:
        fig.add_trace(go.Scatter(x=[early.k], y=[early.value], mode="markers",
                                 name=f"paper's early stop: k = {early.k}",
                                 marker=dict(size=12, symbol="x", color=METHOD_COLOURS["what-if"])))
    return _layout(fig, title, "k (items flagged, highest probability first)", "expected loss")


def batch_items_figure(eta: np.ndarray, decision) -> go.Figure:
    """The batch's probabilities in decreasing order, decided items highlighted."""
    e = np.asarray(eta)[decision.order]
    rank = np.arange(1, e.size + 1)
    chosen = rank <= decision.k
    fig = go.Figure()
    for flag, name, colour in ((True, "flagged", METHOD_COLOURS["positive"]), (False, "not flagged",
                                                                                 METHOD_COLOURS["negative"])):
        sel = chosen == flag
        fig.add_trace(go.Bar(x=rank[sel], y=e[sel], name=name, marker_color=colour,
                             customdata=decision.order[sel] + 1,
                             hovertemplate="rank %{x}<br>item %{customdata}<br>probability %{y:.4f}<extra></extra>"))
    fig.update_layout(bargap=0)
    return _layout(fig, "Items by probability", "rank in the batch", "probability of being positive")


def baselines_figure(summary) -> go.Figure:
    """Mean test loss per method with standard-error bars."""
    fig = go.Figure(go.Bar(x=summary["method"], y=summary["mean_test_loss"],
                           error_y=dict(type="data", array=summary["std_error"]),
                           marker_color=[METHOD_COLOURS["grid"], METHOD_COLOURS["analytic-power"],
                                         METHOD_COLOURS["chosen"]][: len(summary)],
                           hovertemplate="%{x}<br>mean loss %{y:.4f}<extra></extra>"))
    return _layout(fig, "Mean test loss over batches", "method", "mean loss (lower is better)")


_TRADEOFF_COLOURS = {"qwyc": "#E45756", "natural": "#4C78A8", "random": "#BAB0AC", "individual_mse": "#72B7B2",
                     "greedy_mse": "#54A24B", "fan": "#B279A2", "smaller": "#9D755D"}


def tradeoff_figure(table, y: str = "test_disagreement_pct", x: str = "test_mean_models",
                    title: str = "Speed against fidelity") -> go.Figure:
    """One line per method through its sweep (alpha, gamma or k); Pareto points marked."""
    labels = {"test_disagreement_pct": "% test decisions differing from the full ensemble",
              "test_accuracy": "test accuracy", "test_mean_models": "mean # base models evaluated (test)",
              "fit_disagreement_pct": "% fit decisions differing", "fit_mean_models": "mean # base models (fit)"}
    fig = go.Figure()
    for method, group in table.groupby("method", sort=False):
        group = group.sort_values(x)
        colour = _TRADEOFF_COLOURS.get(method, "#72B7B2")
        name = {"qwyc": "QWYC*", "fan": "Fan et al.", "smaller": "smaller ensemble"}.get(method, f"{method} + Alg. 2")
        fig.add_trace(go.Scatter(
            x=group[x], y=group[y], mode="lines+markers", name=name,
            line=dict(color=colour, width=3 if method == "qwyc" else 1.5),
            marker=dict(size=np.where(group["pareto"], 9, 5)), customdata=group["parameter"],
            hovertemplate=f"{name}<br>parameter %{{customdata}}<br>%{{x:.1f}} models<br>%{{y:.3f}}<extra></extra>"))
    return _layout(fig, title, labels.get(x, x), labels.get(y, y))


def models_histogram_figure(n_evaluated: np.ndarray, total: int) -> go.Figure:
    """How many base models each example needed."""
    fig = go.Figure(go.Histogram(x=n_evaluated, xbins=dict(start=0.5, end=total + 0.5, size=max(1, total // 100)),
                                 marker_color=METHOD_COLOURS["curve"],
                                 hovertemplate="%{x} models<br>%{y:,} examples<extra></extra>"))
    fig.add_vline(x=float(np.mean(n_evaluated)), line=dict(color=METHOD_COLOURS["chosen"], dash="dot"),
                  annotation_text=f"mean {np.mean(n_evaluated):.1f}")
    fig = _layout(fig, "Base models evaluated per example (test)", "# base models evaluated",
                  "examples (log scale)")
    fig.update_yaxes(type="log")  # most examples leave in the first few steps; the long tail stays visible
    return fig


def thresholds_figure(policy, max_steps: int | None = None) -> go.Figure:
    """Early-exit thresholds after each step of the order (finite ones only), with the model evaluated."""
    steps = np.arange(1, len(policy.order) + 1)
    lo, hi = np.asarray(policy.eps_minus, float), np.asarray(policy.eps_plus, float)
    if max_steps is not None:
        steps, lo, hi = steps[:max_steps], lo[:max_steps], hi[:max_steps]
    fig = go.Figure()
    for values, name, colour in ((hi, "ε⁺ (exit positive above)", METHOD_COLOURS["positive"]),
                                 (lo, "ε⁻ (exit negative below)", METHOD_COLOURS["negative"])):
        finite = np.isfinite(values)
        fig.add_trace(go.Scatter(x=steps[finite], y=values[finite], mode="markers+lines", name=name,
                                 marker=dict(color=colour, size=5), line=dict(color=colour, width=1),
                                 customdata=np.asarray(policy.order)[: steps.size][finite],
                                 hovertemplate="step %{x}<br>model %{customdata}<br>threshold %{y:.4g}<extra></extra>"))
    fig.add_hline(y=policy.threshold, line=dict(color="black", dash="dot"), annotation_text="decision threshold β")
    return _layout(fig, "Order and early-exit thresholds", "step (models evaluated so far)", "running score")


def constraint_trace_figure(model) -> go.Figure:
    """Majorization-minimization trace: ramp objective, deterministic error and each constraint (<= 0 met)."""
    rows = model.trace_
    it = [r["iteration"] for r in rows]
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=it, y=[r["objective"] for r in rows], mode="lines+markers", name="ramp objective",
                             line=dict(color=METHOD_COLOURS["chosen"], width=3)))
    fig.add_trace(go.Scatter(x=it, y=[r["error"] for r in rows], mode="lines+markers", name="training error (f ≥ 0)",
                             line=dict(color=METHOD_COLOURS["curve"])))
    for j, name in enumerate(model.constraint_names):
        fig.add_trace(go.Scatter(x=it, y=[r["constraints"][j] for r in rows], mode="lines+markers",
                                 name=escape(f"constraint {j + 1}: {name} (ramp value, ≤ 0 met)"), line=dict(dash="dot"),
                                 customdata=[r["multipliers"][j] if j < len(r["multipliers"]) else None for r in rows],
                                 hovertemplate="iteration %{x}<br>value %{y:.4f}<br>multiplier %{customdata:.4g}"
                                               "<extra></extra>"))
    fig.add_hline(y=0, line=dict(color="black", width=1))
    return _layout(fig, "Majorization-minimization trace", "iteration", "value")


def fairness_tradeoff_figure(table) -> go.Figure:
    """Test error against the achieved female / male positive-rate ratio, one line per method."""
    fig = go.Figure()
    colours = {"constrained (deterministic)": METHOD_COLOURS["chosen"],
               "constrained (randomised, expected)": METHOD_COLOURS["analytic-spline"],
               "SVM + per-group thresholds": METHOD_COLOURS["analytic-power"],
               "unconstrained SVM": METHOD_COLOURS["grid"]}
    for method, group in table.groupby("method", sort=False):
        for split, dash in (("test", "solid"), ("train", "dot")):
            fig.add_trace(go.Scatter(x=group[f"{split}_ratio"], y=group[f"{split}_error"], mode="lines+markers",
                                     name=f"{method} ({split})", line=dict(color=colours.get(method), dash=dash),
                                     customdata=group["required_ratio"],
                                     hovertemplate="required ratio %{customdata}<br>achieved %{x:.3f}<br>error "
                                                   "%{y:.4f}<extra></extra>"))
    return _layout(fig, "Error against fairness", "female / male positive-rate ratio", "error")


def churn_tradeoff_figure(table) -> go.Figure:
    """Achieved churn (train and test) and test error against the churn target."""
    fig = go.Figure()
    for method, group in table.dropna(subset=["train_churn"]).groupby("method", sort=False):
        for split, dash in (("test", "solid"), ("train", "dot")):
            fig.add_trace(go.Scatter(x=group["churn_target"], y=group[f"{split}_churn"], mode="lines+markers",
                                     name=f"{method}: churn ({split})", line=dict(dash=dash),
                                     customdata=group["test_error"],
                                     hovertemplate="target %{x:.3f}<br>churn %{y:.4f}<br>test error %{customdata:.4f}"
                                                   "<extra></extra>"))
    lo, hi = float(table["churn_target"].min()), float(table["churn_target"].max())
    fig.add_trace(go.Scatter(x=[lo, hi], y=[lo, hi], mode="lines", name="churn = target",
                             line=dict(color="black", width=1)))
    return _layout(fig, "Churn against its target", "churn target", "achieved churn")
