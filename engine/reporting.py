"""Shared report machinery: self-contained HTML (plotly.js inlined, opens offline) and JSON records.

Every user-supplied string (data set and column names) is HTML-escaped; tables
are rendered with escaping on. Each paper's ``report`` module builds its
sections and records with these.
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

__all__ = ["ReportSection", "render_html", "to_json", "json_safe", "csv_bytes", "neutralise_formulas", "ENGINE_VERSION"]

ENGINE_VERSION = "0.1.0"


_CSS = """
body{font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:2em auto;max-width:1100px;color:#222}
h1{font-size:1.6em}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;font-size:0.9em}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}
th{background:#f4f4f4}.meta td{text-align:left}.note{color:#555;font-size:0.9em}
"""


@dataclass(frozen=True)
class ReportSection:
    """A heading and its content: plain text (escaped), a table, or a figure.

    Attributes
    ----------
    heading : str
        Section heading (escaped).
    content : str or pandas.DataFrame or plotly.graph_objects.Figure
        Text is shown as one escaped paragraph, a frame as an escaped table without
        index, a figure as an interactive plot.
    note : str
        Small print under the content (empty for none).
    """

    heading: str
    content: str | pd.DataFrame | go.Figure
    note: str = ""


def json_safe(value: Any) -> Any:
    """JSON-safe: numpy scalars/arrays to Python, inf/NaN to None.

    Parameters
    ----------
    value : object
        Any value; dicts, lists, tuples and arrays are converted recursively.

    Returns
    -------
    object
        The value with dict keys as ``str``, tuples and arrays as lists, numpy scalars
        as Python scalars and non-finite floats as None; other values unchanged.
    """
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    if isinstance(value, np.ndarray):
        return [json_safe(v) for v in value.tolist()]
    if isinstance(value, (np.floating, float)):
        f = float(value)
        return f if math.isfinite(f) else None
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, np.bool_):
        return bool(value)
    return value


def to_json(kind: str, payload: dict) -> str:
    """The JSON record of a report (inf/NaN written as null).

    Parameters
    ----------
    kind : str
        What the report is (``"operating point"``, ``"paths"`` ...).
    payload : dict
        The report's content; its keys are written after the header keys.

    Returns
    -------
    str
        Indented JSON with ``kind``, ``engine_version``, ``generated_at`` (UTC, ISO 8601)
        and the payload.
    """
    record = {"kind": kind, "engine_version": ENGINE_VERSION,
              "generated_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"), **payload}
    return json.dumps(json_safe(record), indent=2)


def render_html(title: str, meta: dict, sections: Sequence[ReportSection]) -> str:
    """One self-contained HTML page; plotly.js is embedded once, before the first figure.

    Parameters
    ----------
    title : str
        Page title and top heading (escaped).
    meta : dict
        Key-value table shown under the title (keys and values escaped).
    sections : sequence of ReportSection
        The page's sections, in order.

    Returns
    -------
    str
        The HTML document; it opens offline.
    """
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


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _formula_like(value) -> bool:
    return isinstance(value, str) and value.startswith(_FORMULA_START)


def neutralise_formulas(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy whose text cells cannot run as spreadsheet formulas (OWASP CSV injection).

    Text cells and column names starting with ``=``, ``+``, ``-``, ``@``, tab or carriage
    return get a leading apostrophe; numbers are left alone (a negative number is not text).
    Every column that can hold text is checked, whatever its dtype (object, string,
    categorical, ...); a column with a neutralised cell is returned as plain objects (a
    categorical could not take the new value), the others keep their dtype.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table to export; not modified.

    Returns
    -------
    pandas.DataFrame
        The neutralised copy.
    """
    out = frame.copy()
    out.columns = ["'" + c if _formula_like(c) else c for c in out.columns]
    for j in range(out.shape[1]):
        values = out.iloc[:, j]
        if pd.api.types.is_numeric_dtype(values) or pd.api.types.is_datetime64_any_dtype(values) \
                or pd.api.types.is_timedelta64_dtype(values):
            continue  # numbers (booleans included) and times are never text
        cells = values.to_numpy(dtype=object)
        text = np.fromiter((_formula_like(v) for v in cells), dtype=bool, count=cells.size)
        if text.any():
            cells = cells.copy()
            cells[text] = ["'" + v for v in cells[text]]
            out.isetitem(j, pd.Series(cells, index=out.index, dtype=object))
    return out


def csv_bytes(frame: pd.DataFrame) -> bytes:
    """UTF-8 CSV of a table for download (no index), with formula-like text cells neutralised.

    Lines end with ``\\n``; when a text cell or column name holds a carriage return, lines end
    with ``\\r\\n`` (RFC 4180) instead, so that the CSV writer quotes that cell: unquoted, a
    spreadsheet would break the row there and could read the rest of the cell as a new,
    unneutralised cell.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table to export.

    Returns
    -------
    bytes
        The CSV file, neutralised by :func:`neutralise_formulas`.
    """
    out = neutralise_formulas(frame)
    cells = [out.iloc[:, j].to_numpy(dtype=object) for j in range(out.shape[1])
             if not pd.api.types.is_numeric_dtype(out.iloc[:, j])]
    carriage_return = any(isinstance(v, str) and "\r" in v for v in (*out.columns, *(v for c in cells for v in c)))
    return out.to_csv(index=False, lineterminator="\r\n" if carriage_return else "\n").encode()
