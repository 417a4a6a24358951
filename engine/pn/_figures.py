"""Plotly figures for PN curves, marginal precision and joint thresholds (Robles et al., AAAI-MAKE 2020)."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

import numpy as np
import plotly.graph_objects as go

from ..plotting import METHOD_COLOURS, FigureParts, layout, method_colour, thin
from ._bootstrap import Bootstrap
from ._comparison import Frontier, GraphPathBootstrap
from ._curve import Hull, PNCurve
from ._grid import ThresholdGrid
from ._operating_point import OperatingPoint
from ._paths import ThresholdPath

__all__ = [
    "pn_figure",
    "pn_figure_parts",
    "point_marks",
    "marginal_precision_figure",
    "marginal_precision_parts",
    "target_marks",
    "score_histogram_figure",
    "threshold_space_figure",
    "paths_pn_figure",
    "segments_figure",
]

#: segments drawn in the segment figure (the ones flagging most); the table lists every segment
MAX_SEGMENTS_DRAWN = 12


def pn_figure(
    curve: PNCurve,
    hull: Hull,
    points: Sequence[tuple[str, OperatingPoint]] = (),
    max_points: int = 1500,
    title: str = "PN curve",
) -> go.Figure:
    """TP against FP with the upper hull and marked operating points.

    Hover on the curve shows threshold, TP, FP, precision and hull marginal precision. At most
    ``max_points`` curve points are drawn (a chart is well under 1,500 pixels wide; the hull vertices
    are always drawn in full).

    Parameters
    ----------
    curve : PNCurve
        The PN curve (Robles et al. 2020, section 3): raw TP against raw FP as the threshold falls.
    hull : Hull
        Its upper concave hull.
    points : sequence of (str, OperatingPoint)
        Operating points to mark, each with its legend label.
    max_points : int
        Most curve points drawn.
    title : str
        Figure title.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    return pn_figure_parts(curve, hull, max_points, title).draw(**point_marks(points))


def pn_figure_parts(curve: PNCurve, hull: Hull, max_points: int = 1500, title: str = "PN curve") -> FigureParts:
    """The still part of :func:`pn_figure`: curve, hull and layout, for a slider that moves only the points.

    ``pn_figure_parts(curve, hull, m, t).draw(**point_marks(points))`` is ``pn_figure(curve, hull, points, m, t)``.

    Parameters
    ----------
    curve, hull, max_points, title
        As in :func:`pn_figure`.

    Returns
    -------
    FigureParts
    """
    keep = thin(curve.thresholds.size, max_points)
    prec = curve.precision[keep]
    mp = hull.mp_at_threshold[keep]
    fig = go.Figure()
    # SVG, not WebGL: with the curve thinned to a screen's width it draws faster, and WebGL without a
    # GPU (software rendering) is slowest of all
    fig.add_trace(
        go.Scatter(
            x=curve.fp[keep],
            y=curve.tp[keep],
            mode="lines",
            name="PN curve",
            line=dict(color=METHOD_COLOURS["curve"]),
            customdata=np.column_stack([curve.thresholds[keep], prec, mp]),
            hovertemplate="threshold %{customdata[0]:.6g}<br>TP %{y:,.6g}<br>FP %{x:,.6g}"
            "<br>precision %{customdata[1]:.3f}<br>marginal precision %{customdata[2]:.3f}<extra></extra>",
        )
    )
    edge_mp = np.r_[hull.edge_mp, np.nan]
    fig.add_trace(
        go.Scatter(
            x=hull.fp,
            y=hull.tp,
            mode="lines+markers",
            name="upper hull",
            marker=dict(size=4),
            line=dict(color=METHOD_COLOURS["hull"], dash="dash"),
            customdata=np.column_stack([hull.thresholds, edge_mp]),
            hovertemplate="hull vertex<br>threshold %{customdata[0]:.6g}<br>TP %{y:,.6g}<br>FP %{x:,.6g}"
            "<br>marginal precision below %{customdata[1]:.3f}<extra></extra>",
        )
    )
    return FigureParts.of(
        layout(fig, title, "false positives (rated negatives flagged)", "true positives (rated positives flagged)")
    )


def point_marks(points: Sequence[tuple[str, OperatingPoint]]) -> dict[str, list[dict]]:
    """The operating points of :func:`pn_figure` as stars, for :meth:`FigureParts.draw`.

    Parameters
    ----------
    points : sequence of (str, OperatingPoint)
        Operating points to mark, each with its legend label; ``"chosen"`` is drawn in the chosen colour.

    Returns
    -------
    dict
        ``{"traces": [...]}``: one Plotly scatter trace (JSON) per point.
    """
    traces = []
    for label, op in points:
        colour = METHOD_COLOURS["chosen"] if label == "chosen" else METHOD_COLOURS["what-if"]
        traces.append(
            dict(
                type="scatter",
                x=[op.fp],
                y=[op.tp],
                mode="markers",
                name=f"{label}: m = {op.target:.3g}",
                marker=dict(size=13, color=colour, symbol="star", line=dict(color="black", width=1)),
                hovertemplate=(
                    f"{label}<br>threshold {np.ravel(op.threshold)[0]:.6g}<br>TP %{{y:,.6g}}<br>FP %{{x:,.6g}}"
                    f"<br>precision {op.precision:.3f}<extra></extra>"
                ),
            )
        )
    return {"traces": traces}


def marginal_precision_figure(
    hull: Hull,
    target: float,
    chosen: OperatingPoint | None = None,
    boot: Bootstrap | None = None,
    max_points: int = 1500,
    title: str = "Marginal precision against threshold",
) -> go.Figure:
    """Hull marginal precision (PAV fit of label on score) against threshold, band and target line.

    Parameters
    ----------
    hull : Hull
        Upper concave hull of the PN curve; its slope gives the marginal precision.
    target : float
        Target marginal precision, drawn as a horizontal line.
    chosen : OperatingPoint, optional
        The operating point at the target, marked.
    boot : Bootstrap, optional
        Bootstrap replicates: their pointwise interval is drawn as a band.
    max_points : int
        Most points drawn per line.
    title : str
        Figure title.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    return marginal_precision_parts(hull, boot, max_points, title).draw(**target_marks(target, chosen))


def marginal_precision_parts(
    hull: Hull,
    boot: Bootstrap | None = None,
    max_points: int = 1500,
    title: str = "Marginal precision against threshold",
) -> FigureParts:
    """The still part of :func:`marginal_precision_figure`: band, curve and layout, without the target's lines.

    ``marginal_precision_parts(hull, boot, m, t).draw(**target_marks(target, chosen))`` is
    ``marginal_precision_figure(hull, target, chosen, boot, m, t)``.

    Parameters
    ----------
    hull, boot, max_points, title
        As in :func:`marginal_precision_figure`.

    Returns
    -------
    FigureParts
    """
    th = hull.curve.thresholds
    keep = thin(th.size, max_points)
    fig = go.Figure()
    if boot is not None:
        band = thin(boot.band_thresholds.size, max_points)
        bt = boot.band_thresholds[band]
        fig.add_trace(
            go.Scatter(
                x=bt,
                y=boot.mp_band[2][band],
                mode="lines",
                line=dict(width=0),
                line_shape="hv",
                showlegend=False,
                hoverinfo="skip",
            )
        )
        fig.add_trace(
            go.Scatter(
                x=bt,
                y=boot.mp_band[0][band],
                mode="lines",
                line=dict(width=0),
                fill="tonexty",
                line_shape="hv",
                fillcolor="rgba(76,120,168,0.2)",
                name=f"{int(boot.level * 100)} % bootstrap band ({boot.n_boot} replicates)",
                customdata=np.column_stack([boot.mp_band[2][band], boot.n_at_or_above[band]]),
                hovertemplate="threshold %{x:.6g}<br>band %{y:.3f} – %{customdata[0]:.3f}"
                "<br>%{customdata[1]:,} rated documents at or above<extra></extra>",
            )
        )
    fig.add_trace(
        go.Scatter(
            x=th[keep],
            y=hull.mp_at_threshold[keep],
            mode="lines",
            line_shape="hv",
            name="marginal precision (hull)",
            line=dict(color=METHOD_COLOURS["curve"]),
            hovertemplate="threshold %{x:.6g}<br>marginal precision %{y:.3f}<extra></extra>",
        )
    )
    fig.update_yaxes(range=[0, 1.02])
    return FigureParts.of(layout(fig, title, "threshold (score)", "marginal precision dTP / (dTP + dFP)"))


def target_marks(target: float, chosen: OperatingPoint | None = None) -> dict[str, list[dict]]:
    """The target's line and the chosen threshold's line of :func:`marginal_precision_figure`, for
    :meth:`FigureParts.draw`.

    The shapes and labels are those of Plotly's ``add_hline`` (label top left) and ``add_vline`` (label
    top right); the chosen threshold is drawn only when it is finite.

    Parameters
    ----------
    target : float
        Target marginal precision: a dotted horizontal line across the plot.
    chosen : OperatingPoint, optional
        The operating point at the target: a vertical line at its threshold.

    Returns
    -------
    dict
        ``{"shapes": [...], "annotations": [...]}`` as Plotly JSON.
    """
    colour = METHOD_COLOURS["chosen"]
    shapes = [
        dict(
            type="line",
            xref="x domain",
            x0=0,
            x1=1,
            yref="y",
            y0=target,
            y1=target,
            line=dict(color=colour, dash="dot"),
        )
    ]
    annotations = [
        dict(
            text=f"target {target:.3g}",
            showarrow=False,
            xref="x domain",
            x=0,
            xanchor="left",
            yref="y",
            y=target,
            yanchor="bottom",
        )
    ]
    if chosen is not None and np.isfinite(np.ravel(chosen.threshold)[0]):
        x = float(np.ravel(chosen.threshold)[0])
        shapes.append(dict(type="line", xref="x", x0=x, x1=x, yref="y domain", y0=0, y1=1, line=dict(color=colour)))
        annotations.append(
            dict(
                text="chosen threshold",
                showarrow=False,
                xref="x",
                x=x,
                xanchor="left",
                yref="y domain",
                y=1,
                yanchor="top",
            )
        )
    return {"shapes": shapes, "annotations": annotations}


def score_histogram_figure(scores: np.ndarray, labels: np.ndarray, name: str, bins: int = 60) -> go.Figure:
    """Histogram of one classifier's scores split by rated label.

    Bins are equally spaced between the lowest and highest score; when that range
    overflows a float (scores near ±1e308) they are equally spaced in rank instead.

    Parameters
    ----------
    scores : numpy.ndarray of float, shape (n,)
        One classifier's scores of the rated documents.
    labels : numpy.ndarray of {0, 1}, shape (n,)
        Their rated labels.
    name : str
        The classifier's name, for the title.
    bins : int
        Number of bins.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    lo, hi = float(np.min(scores)), float(np.max(scores))
    with np.errstate(over="ignore", invalid="ignore"):
        spread = hi - lo
    if np.isfinite(spread):
        edges = np.histogram_bin_edges(scores, bins=bins, range=(lo, hi) if spread > 0 else None)
    else:
        edges = np.unique(np.quantile(scores, np.linspace(0, 1, bins + 1), method="lower"))
    fig = go.Figure()
    # negatives first, positives on top and on their own (right-hand) axis: at 0.1 %-1 % prevalence the rated
    # positives would be invisible on the negatives' linear scale
    for value, label, axis in ((0, "negative", "y"), (1, "positive", "y2")):
        counts, _ = np.histogram(scores[labels == value], bins=edges)
        fig.add_trace(
            go.Bar(
                x=0.5 * (edges[:-1] + edges[1:]),
                y=counts,
                name=f"rated {label}" + (" (right axis)" if value else ""),
                yaxis=axis,
                marker_color=METHOD_COLOURS[label],
                opacity=0.6 if value == 0 else 0.85,
                hovertemplate=f"score %{{x:.4g}}<br>%{{y:,}} rated {label}s<extra></extra>",
            )
        )
    fig.update_layout(
        barmode="overlay",
        yaxis2=dict(
            title=dict(text="rated positives", font=dict(color=METHOD_COLOURS["positive"])),
            overlaying="y",
            side="right",
            showgrid=False,
            rangemode="tozero",
            tickfont=dict(color=METHOD_COLOURS["positive"]),
        ),
    )
    fig = layout(fig, f"Scores of {name} by rated label", "score", "rated negatives")
    fig.update_layout(margin=dict(r=60))
    return fig


def _single_threshold_figure(grid: ThresholdGrid, points: Sequence[tuple[str, OperatingPoint]]) -> go.Figure:
    axis, name = grid.axes[0], (grid.score_names or ("threshold",))[0]
    fig = go.Figure()
    for counts, label, colour in (
        (grid.tp, "true positives", METHOD_COLOURS["positive"]),
        (grid.fp, "false positives", METHOD_COLOURS["negative"]),
    ):
        fig.add_trace(go.Scatter(x=axis, y=counts, mode="lines+markers", name=label, line=dict(color=colour)))
    for label, op in points:
        t = float(np.ravel(op.threshold)[0])
        if np.isfinite(t):
            fig.add_vline(x=t, line=dict(color=method_colour(label), dash="dot"), annotation_text=escape(label))
    return layout(
        fig,
        f"One threshold ({escape(str(name))}): counts flagged",
        f"threshold of {escape(str(name))}",
        "rated documents flagged",
    )


def threshold_space_figure(
    grid: ThresholdGrid,
    paths: Sequence[ThresholdPath] = (),
    points: Sequence[tuple[str, OperatingPoint]] = (),
    *,
    value: str = "tp",
    dims: tuple[int, int] = (0, 1),
    fixed: dict[int, int] | None = None,
    boot: GraphPathBootstrap | None = None,
) -> go.Figure:
    """Heatmap of TP (or precision) over a 2-D slice of the grid with paths and points drawn on it.

    For k > 2, ``fixed`` gives the grid index of every other axis (default: the
    lowest threshold); paths are projected onto the two shown axes. With one threshold
    (k = 1) there is no space to draw: TP and FP against the threshold, points marked.

    Parameters
    ----------
    grid : ThresholdGrid
        Joint threshold grid of k classifiers (Robles et al. 2020, eq. 1).
    paths : sequence of ThresholdPath
        Paths drawn through the grid (graph path, analytic path).
    points : sequence of (str, OperatingPoint)
        Operating points to mark, each with its legend label.
    value : {"tp", "precision"}
        What the heatmap shows.
    dims : (int, int)
        The two grid axes shown (vertical, horizontal).
    fixed : dict of int to int, optional
        Grid index of each axis not shown (k > 2).
    boot : GraphPathBootstrap, optional
        Bootstrap replicates of the graph path, drawn faint.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    if grid.k == 1:
        return _single_threshold_figure(grid, points)
    a, b = dims
    index: list = []
    for j in range(grid.k):
        index.append(slice(None) if j in dims else (fixed or {}).get(j, 0))
    data = grid.tp if value == "tp" else grid.precision
    z = data[tuple(index)]
    if a > b:
        z = z.T
    fig = go.Figure(
        go.Heatmap(
            x=grid.axes[b],
            y=grid.axes[a],
            z=z,
            colorscale="Viridis",
            colorbar=dict(title=value.upper() if value == "tp" else "precision"),
            hovertemplate=f"{escape(grid.names[a])} %{{y:.5g}}<br>{escape(grid.names[b])} %{{x:.5g}}<br>{value} "
            f"%{{z:.4g}}<extra></extra>",
        )
    )
    if boot is not None:
        freq = (
            boot.visit_frequency.max(axis=tuple(j for j in range(grid.k) if j not in dims))
            if grid.k > 2
            else boot.visit_frequency
        )
        ii, jj = np.nonzero(freq if a < b else freq.T)
        fig.add_trace(
            go.Scatter(
                x=grid.axes[b][jj],
                y=grid.axes[a][ii],
                mode="markers",
                name="bootstrap graph paths",
                marker=dict(size=5, color="white", opacity=0.5),
                hovertemplate="visited by bootstrap paths<extra></extra>",
            )
        )
    for p in paths:
        fig.add_trace(
            go.Scatter(
                x=p.thresholds[:, b],
                y=p.thresholds[:, a],
                mode="lines",
                name=f"{p.method} path",
                line=dict(color=method_colour(p.method), width=3),
            )
        )
    for label, op in points:
        th = np.ravel(op.threshold)
        fig.add_trace(
            go.Scatter(
                x=[th[b]],
                y=[th[a]],
                mode="markers",
                name=label,
                marker=dict(size=14, symbol="star", color=method_colour(label), line=dict(color="black", width=1)),
            )
        )
    return layout(fig, "Threshold space", f"threshold of {grid.names[b]}", f"threshold of {grid.names[a]}")


def paths_pn_figure(
    grid: ThresholdGrid,
    front: Frontier,
    paths: Sequence[ThresholdPath] = (),
    points: Sequence[tuple[str, OperatingPoint]] = (),
    max_points: int = 20000,
) -> go.Figure:
    """PN view: every grid point faint, the Pareto frontier, each path's PN curve and operating point.

    Parameters
    ----------
    grid : ThresholdGrid
        Joint threshold grid (its TP and FP counts are the faint points).
    front : Frontier
        Pareto frontier of the grid points.
    paths : sequence of ThresholdPath
        Paths whose PN curves are drawn, with their areas in the legend.
    points : sequence of (str, OperatingPoint)
        Operating points to mark, each with its legend label.
    max_points : int
        Most grid points drawn.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    fp = grid.fp.ravel()
    tp = grid.tp.ravel()
    keep = thin(fp.size, max_points)
    fig = go.Figure()
    fig.add_trace(
        go.Scattergl(
            x=fp[keep],
            y=tp[keep],
            mode="markers",
            name="grid points",
            marker=dict(size=3, color=METHOD_COLOURS["grid"], opacity=0.35),
            hoverinfo="skip",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=front.fp,
            y=front.tp,
            mode="lines",
            line_shape="hv",
            name="Pareto frontier",
            line=dict(color=METHOD_COLOURS["frontier"], dash="dot"),
        )
    )
    for p in paths:
        th = p.thresholds
        text = ["<br>".join(f"{escape(n)} {v:.5g}" for n, v in zip(grid.names, row)) for row in th[thin(len(th), 3000)]]
        sel = thin(len(th), 3000)
        fig.add_trace(
            go.Scatter(
                x=p.fp[sel],
                y=p.tp[sel],
                mode="lines",
                name=f"{p.method} (area {p.auc:,.0f})",
                line=dict(color=method_colour(p.method), width=2.5),
                text=text,
                hovertemplate="%{text}<br>TP %{y:,.5g}<br>FP %{x:,.5g}<extra></extra>",
            )
        )
    for label, op in points:
        fig.add_trace(
            go.Scatter(
                x=[op.fp],
                y=[op.tp],
                mode="markers",
                name=f"{label} operating point",
                marker=dict(size=14, symbol="star", color=method_colour(label), line=dict(color="black", width=1)),
            )
        )
    return layout(fig, "PN view of the joint thresholds", "false positives", "true positives")


def segments_figure(curves, allocation, title: str = "Hull of every segment, with the common slope") -> go.Figure:
    """Each segment's upper hull (TP against FP), its chosen point, and a tangent of the common slope there.

    ``curves`` is a :class:`~engine.pn._segments.SegmentedCurves`, ``allocation`` an
    :class:`~engine.pn._segments.Allocation`. At a common marginal precision μ every
    chosen point's tangent has slope μ / (1 − μ) in (FP, TP): the segments pay the
    same false positives for their next true positive.

    Parameters
    ----------
    curves : SegmentedCurves
        Every segment's PN curve and hull.
    allocation : Allocation
        The point chosen in each segment.
    title : str
        Figure title.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    fig = go.Figure()
    palette = [
        "#4C78A8",
        "#F58518",
        "#54A24B",
        "#B279A2",
        "#72B7B2",
        "#EECA3B",
        "#9D755D",
        "#BAB0AC",
        "#E45756",
        "#FF9DA6",
        "#79706E",
        "#D67195",
    ]
    chosen = {p.segment: p for p in allocation.segments}
    ranked = sorted(curves.names, key=lambda n: -chosen[n].flagged)[:MAX_SEGMENTS_DRAWN]
    mu = allocation.common_marginal_precision
    slope = mu / (1 - mu) if np.isfinite(mu) and 0 < mu < 1 else None
    for k, name in enumerate(ranked):
        hull, point, colour = curves.hulls[curves.names.index(name)], chosen[name], palette[k % len(palette)]
        label = escape(str(name))
        fig.add_trace(
            go.Scatter(
                x=hull.fp,
                y=hull.tp,
                mode="lines",
                name=label,
                legendgroup=label,
                line=dict(color=colour),
                customdata=hull.thresholds,
                hovertemplate=f"{label}<br>threshold %{{customdata:.6g}}<br>TP %{{y:,.6g}}"
                "<br>FP %{x:,.6g}<extra></extra>",
            )
        )
        fig.add_trace(
            go.Scatter(
                x=[point.fp],
                y=[point.tp],
                mode="markers",
                legendgroup=label,
                showlegend=False,
                marker=dict(size=11, symbol="star", color=colour, line=dict(color="black", width=1)),
                hovertemplate=f"{label}: chosen<br>threshold {point.threshold:.6g}<br>TP %{{y:,.6g}}"
                "<br>FP %{x:,.6g}<extra></extra>",
            )
        )
        if slope is not None:
            half = max(float(hull.fp[-1]) * 0.08, 1.0)
            xs = np.array([max(point.fp - half, 0.0), point.fp + half])
            fig.add_trace(
                go.Scatter(
                    x=xs,
                    y=point.tp + slope * (xs - point.fp),
                    mode="lines",
                    legendgroup=label,
                    showlegend=False,
                    hoverinfo="skip",
                    line=dict(color=colour, dash="dot"),
                )
            )
    caption = f"common marginal precision {mu:.3g}" if np.isfinite(mu) else "one threshold per segment"
    more = len(curves.names) - len(ranked)
    if more > 0:
        caption += f"; the {more} smallest segments are in the table only"
    return layout(
        fig,
        f"{title} ({caption})",
        "false positives (rated negatives flagged)",
        "true positives (rated positives flagged)",
    )
