"""Shared Plotly style: one colour per method everywhere, one layout, point thinning.

Compute elsewhere, draw in each paper's ``figures`` module (the scikit-learn
Display split); every builder there uses :func:`layout` and
:data:`METHOD_COLOURS` so a method looks the same on every page and in every
report.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from typing import Any

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio

__all__ = ["METHOD_COLOURS", "method_colour", "layout", "thin", "SCREEN_POINTS", "log_axis", "LOG_TICKS", "FigureParts"]


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


def _studio_template() -> go.layout.Template:
    """plotly_white's page, axes, font, colours and colour scales only.

    Assigning the full plotly_white template copies and validates all of it (about 15 ms a
    figure); these few layout entries look the same and cost a third of that, which matters
    when a slider redraws two figures per step.
    """
    white = pio.templates["plotly_white"].layout
    keys = (
        "plot_bgcolor",
        "paper_bgcolor",
        "colorway",
        "colorscale",
        "font",
        "hoverlabel",
        "xaxis",
        "yaxis",
        "title",
        "coloraxis",
        "polar",
        "ternary",
        "scene",
    )
    return go.layout.Template(
        layout={k: white[k].to_plotly_json() if hasattr(white[k], "to_plotly_json") else white[k] for k in keys}
    )


STUDIO_TEMPLATE = _studio_template()


def method_colour(method: str) -> str:
    """The colour of a method in every figure.

    Parameters
    ----------
    method : str
        A key of :data:`METHOD_COLOURS` (``"hull"``, ``"graph"`` ...).

    Returns
    -------
    str
        Hex colour; teal (``#72B7B2``) for a method without its own colour.
    """
    return METHOD_COLOURS.get(method, "#72B7B2")


def layout(fig: go.Figure, title: str, x: str, y: str) -> go.Figure:
    """Apply the studio's one figure layout: white template, legend under the plot, fixed height.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        The figure, updated in place.
    title, x, y : str
        Figure title and axis titles (HTML-escaped: they may hold user-supplied names).

    Returns
    -------
    plotly.graph_objects.Figure
        ``fig`` itself, for chaining.
    """
    # legend under the axis title so long legends never cover the figure title
    # Plotly renders a subset of HTML (links included) in titles: user-supplied names are escaped
    fig.update_layout(
        title=escape(title),
        xaxis_title=escape(x),
        yaxis_title=escape(y),
        template=STUDIO_TEMPLATE,
        hovermode="closest",
        legend=dict(orientation="h", yanchor="top", y=-0.18, xanchor="left", x=0),
        margin=dict(l=60, r=20, t=60, b=40),
        height=560,
    )
    return fig


#: a logarithmic axis for people: one label per power of ten written out in full ("0.001", "10,000"), never
#: SI prefixes ("100μ", "10k") or labelled minor ticks ("5, 2, 1000, 5, 2"); unlabelled minor ticks between
LOG_TICKS = dict(
    type="log", dtick=1, tickformat=",~g", exponentformat="none", minor=dict(ticks="inside", ticklen=3, showgrid=False)
)


def log_axis(fig: go.Figure, axis: str = "y") -> go.Figure:
    """Make an axis of ``fig`` logarithmic with :data:`LOG_TICKS` (whole decades labelled, in full).

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        The figure, updated in place.
    axis : {"x", "y"}
        Which axis.

    Returns
    -------
    plotly.graph_objects.Figure
        ``fig`` itself, for chaining.
    """
    (fig.update_xaxes if axis == "x" else fig.update_yaxes)(**LOG_TICKS)
    return fig


#: points per curve in a dashboard chart half a screen wide (about one per pixel column)
SCREEN_POINTS = 600


def thin(n: int, max_points: int) -> np.ndarray:
    """Indices that keep at most ``max_points`` of n, always the first and last (browsers choke on 1e6 points).

    Parameters
    ----------
    n : int
        Number of points.
    max_points : int
        Most points to keep (about; the last index is always added).

    Returns
    -------
    numpy.ndarray of int64
        Sorted unique indices into ``range(n)``: all of them when ``n <= max_points``,
        else evenly spaced ones.
    """
    if n <= max_points:
        return np.arange(n)
    return np.unique(np.r_[np.linspace(0, n - 1, max_points).astype(np.int64), n - 1])


@dataclass(frozen=True)
class FigureParts:
    """A figure split into its still part, built once, and the marks a slider moves, added per step.

    Building a figure with ``graph_objects`` validates every property as it is set: 25 ms for the
    Operating point page's two charts on an idle machine, 100 ms under load, all of it holding the
    server's interpreter while a slider waits. The still part (curves, bands, layout) is kept here as
    validated Plotly JSON; :meth:`draw` adds the moving traces, lines and labels and validates the whole
    figure once from JSON (about 3 ms). The result equals the figure built whole.

    Attributes
    ----------
    still : dict
        ``{"data": [...], "layout": {...}}``: the still part's traces and layout as their ``to_plotly_json``
        gives them (arrays stay NumPy arrays, so ``fig.data[0].x`` reads as it does on a figure built whole).
    """

    still: dict

    @classmethod
    def of(cls, figure: go.Figure) -> FigureParts:
        """The still part of ``figure`` (a copy: later changes to ``figure`` do not reach it).

        Parameters
        ----------
        figure : plotly.graph_objects.Figure
            The figure without its moving marks.

        Returns
        -------
        FigureParts
        """
        return cls(
            {"data": [trace.to_plotly_json() for trace in figure.data], "layout": figure.layout.to_plotly_json()}
        )

    def draw(
        self,
        traces: Sequence[dict[str, Any]] = (),
        shapes: Sequence[dict[str, Any]] = (),
        annotations: Sequence[dict[str, Any]] = (),
    ) -> go.Figure:
        """The whole figure: the still part with ``traces`` drawn over it and ``shapes`` and ``annotations`` added.

        Parameters
        ----------
        traces : sequence of dict
            Plotly traces as JSON (``{"type": "scatter", ...}``), drawn after the still part's traces.
        shapes, annotations : sequence of dict
            Layout shapes and annotations as JSON, after the still part's own.

        Returns
        -------
        plotly.graph_objects.Figure
            A new, validated figure; the still part is not changed.
        """
        still_layout = self.still["layout"]
        figure_layout = dict(still_layout)
        if shapes:
            figure_layout["shapes"] = [*still_layout.get("shapes", ()), *shapes]
        if annotations:
            figure_layout["annotations"] = [*still_layout.get("annotations", ()), *annotations]
        return go.Figure({"data": [*self.still["data"], *traces], "layout": figure_layout})
