"""Self-contained reports: one HTML file (plotly.js inlined, opens offline) and a JSON record.

Every user-supplied string (data set and column names) is HTML-escaped; tables are
rendered with escaping on. The JSON holds the chosen operating point, the data
set's fingerprint (SHA-256 of the uploaded bytes) and every setting needed to
reproduce the choice.
"""

from __future__ import annotations

import datetime as _dt
import html
import json
import math
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from .data import RatedData

__all__ = ["ReportSection", "dataset_summary", "render_html", "to_json", "operating_point_report", "ensemble_report",
           "DEFINITIONS", "ENGINE_VERSION"]

ENGINE_VERSION = "0.1.0"

_CSS = """
body{font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:2em auto;max-width:1100px;color:#222}
h1{font-size:1.6em}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;font-size:0.9em}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}
th{background:#f4f4f4}.meta td{text-align:left}.note{color:#555;font-size:0.9em}
"""


@dataclass(frozen=True)
class ReportSection:
    """A heading and its content: plain text (escaped), a table, or a figure."""

    heading: str
    content: str | pd.DataFrame | go.Figure
    note: str = ""


def _clean(value: Any) -> Any:
    """JSON-safe: numpy scalars/arrays to Python, inf/NaN to None."""
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    if isinstance(value, np.ndarray):
        return [_clean(v) for v in value.tolist()]
    if isinstance(value, (np.floating, float)):
        f = float(value)
        return f if math.isfinite(f) else None
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, np.bool_):
        return bool(value)
    return value


def dataset_summary(data: RatedData) -> dict:
    """What identifies the data set a choice was made on."""
    return {
        "name": data.name,
        "fingerprint_sha256": data.fingerprint,
        "rows_read": data.n_read,
        "rated_rows": data.n_rated,
        "unrated_rows": data.n_unrated,
        "score_columns": list(data.score_names),
        "label_column": data.mapping.label_col,
        "weight_column": data.mapping.weight_col,
        "group_column": data.mapping.group_col,
        "rated_positives_weighted": data.positives,
        "prevalence_among_rated": data.prevalence_among_rated,
    }


def to_json(kind: str, payload: dict) -> str:
    """The JSON record of a report (inf/NaN written as null)."""
    record = {"kind": kind, "engine_version": ENGINE_VERSION,
              "generated_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"), **payload}
    return json.dumps(_clean(record), indent=2)


def render_html(title: str, meta: dict, sections: Sequence[ReportSection]) -> str:
    """One self-contained HTML page; plotly.js is embedded once, before the first figure."""
    parts = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
             f"<style>{_CSS}</style></head><body><h1>{html.escape(title)}</h1>"]
    rows = "".join(f"<tr><th>{html.escape(str(k))}</th><td>{html.escape(str(v))}</td></tr>" for k, v in meta.items())
    parts.append(f"<table class='meta'>{rows}</table>")
    plotly_included = False
    for section in sections:
        parts.append(f"<h2>{html.escape(section.heading)}</h2>")
        c = section.content
        if isinstance(c, go.Figure):
            parts.append(c.to_html(full_html=False, include_plotlyjs=not plotly_included,
                                   config={"displaylogo": False}))
            plotly_included = True
        elif isinstance(c, pd.DataFrame):
            parts.append(c.to_html(index=False, escape=True, float_format=lambda x: f"{x:.6g}", na_rep="–"))
        else:
            parts.append(f"<p>{html.escape(str(c))}</p>")
        if section.note:
            parts.append(f"<p class='note'>{html.escape(section.note)}</p>")
    parts.append("</body></html>")
    return "\n".join(parts)


def _fmt_interval(lo: float, hi: float) -> str:
    return f"[{lo:.6g}, {hi:.6g}]"


def operating_point_report(data: RatedData, classifier: str, op, settings: dict, *, ci=None, what_if=None,
                           sweep: pd.DataFrame | None = None,
                           figures: Sequence[tuple[str, go.Figure]] = ()) -> tuple[str, str]:
    """(HTML, JSON) for a single-classifier operating point.

    ``op`` is the chosen :class:`~engine.pn.OperatingPoint`, ``ci`` its
    :class:`~engine.pn.BootstrapPoint` (or None), ``what_if`` a second operating point.
    """
    summary = dataset_summary(data)
    point = op.as_dict()
    record = {"dataset": summary, "settings": {"classifier": classifier, **settings}, "operating_point": point}
    cards = {"threshold": op.threshold, "TP": op.tp, "FP": op.fp, "precision": op.precision,
             "marginal precision just above": op.mp_above, "marginal precision just below": op.mp_below,
             "FP paid per extra TP (c)": op.cost}
    table = pd.DataFrame({"quantity": list(cards), "value": list(cards.values())})
    if ci is not None:
        intervals = {"threshold": ci.threshold_ci, "tp": ci.tp_ci, "fp": ci.fp_ci}
        record["confidence_intervals"] = {"level": ci.level, "replicates": int(ci.thresholds.size),
                                          **{k: list(v) for k, v in intervals.items()}}
        table["bootstrap interval"] = [_fmt_interval(*ci.threshold_ci), _fmt_interval(*ci.tp_ci),
                                       _fmt_interval(*ci.fp_ci), "", "", "", ""]
    sections = [ReportSection("Chosen operating point", table,
                              "Threshold +inf means: flag nothing (no threshold beats the target).")]
    if what_if is not None:
        from .pn import what_if_table

        record["what_if"] = what_if.as_dict()
        sections.append(ReportSection("What-if: a second target", what_if_table(op, what_if)))
    if sweep is not None:
        record["sweep"] = sweep.to_dict(orient="records")
        sections.append(ReportSection("Sweep of target marginal precisions", sweep))
    sections += [ReportSection(title, fig) for title, fig in figures]
    sections.append(ReportSection("Definitions", DEFINITIONS))
    meta = {"data set": summary["name"], "fingerprint (SHA-256)": summary["fingerprint_sha256"],
            "rated rows": summary["rated_rows"], "unrated rows": summary["unrated_rows"], "classifier": classifier,
            "target marginal precision": op.target, **{k: v for k, v in settings.items() if k != "target"}}
    html_text = render_html("Operating point report", meta, sections)
    return html_text, to_json("operating_point", record)


def ensemble_report(source: dict, settings: dict, comparison: pd.DataFrame, points: dict,
                    figures: Sequence[tuple[str, go.Figure]] = (), bootstrap_summary: pd.DataFrame | None = None
                    ) -> tuple[str, str]:
    """(HTML, JSON) for joint thresholds of 2+ classifiers: the path comparison and each method's point.

    ``source`` identifies the input: :func:`dataset_summary` of rated data, or the name and
    SHA-256 of an aggregated counts table.
    """
    summary = dict(source)
    record = {"dataset": summary, "settings": settings, "operating_points": {k: v.as_dict() for k, v in points.items()},
              "comparison": comparison.to_dict(orient="records")}
    sections = [ReportSection("Comparison of threshold paths", comparison,
                              "Area: trapezoid area under each path's PN curve; % of frontier: share of the area "
                              "under the concave hull of all grid points (the most any chain of grid points can "
                              "reach).")]
    if bootstrap_summary is not None:
        record["graph_path_bootstrap"] = bootstrap_summary.to_dict(orient="records")
        sections.append(ReportSection("Bootstrap spread of the graph path", bootstrap_summary))
    sections += [ReportSection(title, fig) for title, fig in figures]
    sections.append(ReportSection("Definitions", DEFINITIONS))
    meta = {"data set": summary["name"], "fingerprint (SHA-256)": summary["fingerprint_sha256"],
            **({"rated rows": summary["rated_rows"]} if "rated_rows" in summary else {}), **settings}
    return render_html("Joint thresholds report", meta, sections), to_json("ensemble_paths", record)


DEFINITIONS = (
    "Marginal precision m at a point: dTP / (dTP + dFP) of the documents added by lowering the threshold there. "
    "Slope of the PN curve: dTP/dFP = m / (1 - m). False positives paid per extra true positive: c = (1 - m) / m. "
    "The operating point maximises TP - FP * m / (1 - m) (equivalently c*TP - FP); ties go to the highest threshold. "
    "Method: Robles, Zaidouni, Mavromoustaki & Refael, Threshold Optimization in Multiple Binary Classifiers for "
    "Extreme Rare Events using Predicted Positive Data (AAAI-MAKE 2020)."
)
