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
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from . import __version__

__all__ = [
    "ReportSection",
    "Facts",
    "render_html",
    "to_json",
    "json_safe",
    "csv_bytes",
    "neutralise_formulas",
    "format_number",
    "value_in_words",
    "column_in_words",
    "table_for_people",
    "safe_href",
    "ENGINE_VERSION",
    "WIDE_COLUMNS",
]

#: the engine's version (``engine.__version__``), written into every record and policy
ENGINE_VERSION = __version__


#: colour of the thin frame round a printed figure (a figure is found on a page image by it, and a split one shows)
FIGURE_FRAME = "#8a9bb5"

# print-grade: tables never wider than the page (cells wrap, wide tables get a fixed layout and a smaller
# font), a heading stays with what follows it, figures and short tables are never split across pages, no
# plotly mode bar on paper
_CSS = """
@page{size:A4;margin:14mm 12mm}
body{font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:2em auto;max-width:1100px;color:#222;
padding:0 1em;overflow-wrap:anywhere}
h1{font-size:1.6em}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ddd}h3{font-size:1em}
h1,h2,h3{break-after:avoid;page-break-after:avoid}
table{border-collapse:collapse;font-size:0.9em;max-width:100%}
td,th{border:1px solid #ccc;padding:3px 8px;text-align:right;overflow-wrap:anywhere;word-break:break-word}
th{background:#f4f4f4}.meta td,.facts td,.facts th{text-align:left}.note{color:#555;font-size:0.9em}
.facts th{width:9em;overflow-wrap:normal;word-break:normal}
table.wide{width:100%;font-size:0.72em}table.wide td,table.wide th{padding:2px 3px}
td.n{white-space:nowrap;overflow-wrap:normal;word-break:normal}table.words th{overflow-wrap:break-word;word-break:normal}
.block{break-inside:avoid;page-break-inside:avoid}
.figure{break-inside:avoid;page-break-inside:avoid;width:100%;max-width:100%;overflow:hidden}
.modebar,.modebar-container{display:none!important}
.appendix{break-before:page;page-break-before:always}
@page landscape{size:A4 landscape;margin:12mm}.landscape{page:landscape}
@media print{body{max-width:none;margin:0;padding:0}.figure{border:1px solid FRAME;box-sizing:border-box}}
""".replace("FRAME", FIGURE_FRAME)
#: a table with more columns than this is laid out to the page width in a smaller font
WIDE_COLUMNS = 7


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
    level : int
        Heading level (2 for an item, 3 for its parts).
    full_precision : bool
        Floats of a table written with every digit (the appendix), not six significant digits.
    attachment : str
        HTML the section ends with (a CSV download link built by the caller; not escaped).
    anchor : str
        ``id`` of the heading, for links within the page (empty for none).
    landscape : bool
        Printed on a landscape page (a wide table of many rows).
    new_page : bool
        Printed from the top of a new page (the appendix).
    """

    heading: str
    content: str | pd.DataFrame | go.Figure | Facts
    note: str = ""
    level: int = 2
    full_precision: bool = False
    attachment: str = ""
    anchor: str = ""
    landscape: bool = False
    new_page: bool = False


@dataclass(frozen=True)
class Facts:
    """Labelled facts shown as a two-column table; a fact may carry a link.

    Attributes
    ----------
    rows : tuple of (str, str, str)
        ``(label, text, href)``; every part is escaped, and the text is a link only when
        ``href`` passes :func:`safe_href`.
    """

    rows: tuple[tuple[str, str, str], ...]


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
    record = {
        "kind": kind,
        "engine_version": ENGINE_VERSION,
        "generated_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        **payload,
    }
    return json.dumps(json_safe(record), indent=2)


def render_html(title: str, meta: dict, sections: Sequence[ReportSection], *, static: bool = False) -> str:
    """One self-contained HTML page; plotly.js is embedded once, before the first figure.

    Parameters
    ----------
    title : str
        Page title and top heading (escaped).
    meta : dict
        Key-value table shown under the title (keys and values escaped).
    sections : sequence of ReportSection
        The page's sections, in order.
    static : bool, optional
        Draw the figures as static plots (for printing: faster, no hover layers).

    Returns
    -------
    str
        The HTML document; it opens offline. Figures have no mode bar and are never split across
        printed pages; tables never grow wider than the page.
    """
    parts = [
        f"<!DOCTYPE html><html><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body><h1>{html.escape(title)}</h1>"
    ]
    rows = "".join(f"<tr><th>{html.escape(str(k))}</th><td>{html.escape(str(v))}</td></tr>" for k, v in meta.items())
    parts.append(f"<table class='meta'>{rows}</table>")
    plotly_included = False
    for section in sections:
        level = min(max(int(section.level), 2), 6)
        anchor = f" id='{html.escape(section.anchor, quote=True)}'" if section.anchor else ""
        head = f"<h{level}{anchor}>{html.escape(section.heading)}</h{level}>" if section.heading else ""
        c = section.content
        if isinstance(c, go.Figure):
            body = "<div class='figure'>" + _figure_html(c, not plotly_included, static) + "</div>"
            plotly_included = True
        elif isinstance(c, pd.DataFrame):
            body = _table_html(c, section.full_precision)
        elif isinstance(c, Facts):
            body = _facts_html(c)
        else:
            body = f"<p>{html.escape(str(c))}</p>"
        if section.attachment:
            body += section.attachment
        if section.note:
            body += f"<p class='note'>{html.escape(section.note)}</p>"
        # a heading, its figure (or a short table) and its note are kept on one page
        short = not isinstance(c, pd.DataFrame) or len(c) <= 40
        block = f"<div class='block'>{head}{body}</div>" if short else head + body
        if section.new_page:
            block = f"<div class='appendix'>{block}</div>"
        parts.append(f"<div class='landscape'>{block}</div>" if section.landscape else block)
    parts.append("</body></html>")
    return "\n".join(parts)


#: width of a printed figure in CSS pixels: A4's 186 mm between the margins is 703 px; plotly draws a figure at
#: the browser window's width when it loads, which is not the paper's, so a printed figure has this width of its own
PRINT_FIGURE_WIDTH = 690
#: height of a printed figure at most (CSS pixels): two figures and a table to a page
PRINT_FIGURE_HEIGHT = 400


def _wrapped(text: str, width: int) -> str:
    """A figure title broken into lines of at most ``width`` characters (plotly draws one line at any length)."""
    lines: list[str] = []
    for word in text.split(" "):
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return "<br>".join(lines)


def _printed(figure: go.Figure) -> go.Figure:
    """The figure as printed: the paper's width, a height that leaves room for a table, the title on lines that
    fit (a title or an axis wider than the figure is cut off at its edge, with no sign that anything is missing)."""
    title = figure.layout.title.text or ""
    size = figure.layout.title.font.size or 1.4 * (figure.layout.font.size or 12)
    per_line = int(PRINT_FIGURE_WIDTH / (0.56 * size))
    wrapped = _wrapped(title, per_line) if "<br>" not in title and len(title) > per_line else title
    top = figure.layout.margin.t if figure.layout.margin.t is not None else 80
    extra = wrapped.count("<br>") * int(1.3 * size)
    return go.Figure(figure).update_layout(
        width=PRINT_FIGURE_WIDTH,
        autosize=False,
        height=min(int(figure.layout.height or 340), PRINT_FIGURE_HEIGHT) + extra,
        title_text=wrapped,
        margin_t=top + extra,
    )


def _figure_html(figure: go.Figure, include_plotlyjs: bool, static: bool) -> str:
    if static:
        figure = _printed(figure)
    else:
        width, height = figure.layout.width, figure.layout.height
        if width is not None or (height is not None and height > 560):  # could run off the page: the page's width
            figure = go.Figure(figure).update_layout(width=None, autosize=True, height=min(int(height or 420), 560))
    height = figure.layout.height or 420
    return figure.to_html(
        full_html=False,
        include_plotlyjs=include_plotlyjs,
        default_width="100%",
        default_height=f"{int(height)}px",
        validate=False,
        config={"displaylogo": False, "displayModeBar": False, "staticPlot": bool(static), "responsive": not static},
    )


def _full(x) -> str:
    return repr(float(x)) if isinstance(x, (float, np.floating)) else str(x)


#: a cell of one short word ("0.0717", "2025-01-06", "26,607,776", "no"): printed on one line, never broken
#: between its characters (longer words and full-precision digits may break)
_SHORT_CELL = re.compile(r"<td>([^\s<]{1,12})</td>")


def _table_html(frame: pd.DataFrame, full_precision: bool) -> str:
    classes = ("wide " if frame.shape[1] > WIDE_COLUMNS else "") + ("" if full_precision else "words")
    table = frame.to_html(
        index=False,
        escape=True,
        na_rep="–",
        classes=classes.strip() or None,
        border=0,
        float_format=_full if full_precision else (lambda x: f"{x:.6g}"),
    )
    return table if full_precision else _SHORT_CELL.sub(r"<td class='n'>\1</td>", table)


def _facts_html(facts: Facts) -> str:
    rows = []
    for label, text, href in facts.rows:
        value = html.escape(str(text))
        link = safe_href(href)
        if link:
            value = f"<a href='{html.escape(link, quote=True)}'>{value}</a>"
        rows.append(f"<tr><th>{html.escape(str(label))}</th><td>{value}</td></tr>")
    return f"<table class='facts'>{''.join(rows)}</table>"


def safe_href(url: object) -> str:
    """The URL when a report may link to it, else ``""``.

    Only absolute ``http``/``https`` URLs with a host and paths of this site (``/page?...``)
    pass; ``javascript:``, ``data:``, protocol-relative (``//host``) and anything holding spaces,
    quotes, angle brackets or control characters do not.

    Parameters
    ----------
    url : object
        The candidate (anything not a ``str`` is refused).

    Returns
    -------
    str
        ``url`` unchanged, or ``""``.
    """
    if not isinstance(url, str) or not url or len(url) > 8192:
        return ""
    if any(ch in url for ch in " \"'<>`\\") or any(ord(ch) < 32 or ord(ch) == 127 for ch in url):
        return ""
    if url.startswith("/") and not url.startswith("//"):
        return url
    parts = urlsplit(url)
    return url if parts.scheme in ("http", "https") and parts.netloc else ""


def format_number(value, digits: int = 3) -> str:
    """A number for people: thousands separators, ``digits`` significant digits, a dash for none.

    Parameters
    ----------
    value : object
        A number (``None``, NaN and other non-numbers are handled: a dash, or ``str``).
    digits : int, optional
        Significant digits of a non-integer.

    Returns
    -------
    str
        ``"2,000"`` for 2000.0, ``"0.0523"`` for 0.0522876, ``"5.67"`` for 5.66667, ``"27,098,200"``
        for 2.70982e7, ``"yes"``/``"no"`` for booleans, ``"–"`` for None/NaN, ``"∞"`` for infinity.
    """
    if value is None or value is pd.NA or value is pd.NaT:
        return "–"
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, (int, np.integer)):
        return f"{int(value):,}"
    if isinstance(value, (float, np.floating)):
        x = float(value)
        if math.isnan(x):
            return "–"
        if math.isinf(x):
            return "∞" if x > 0 else "−∞"
        if x == int(x) and abs(x) < 1e15:
            return f"{int(x):,}"
        if abs(x) >= 10 ** (digits - 1):
            return f"{x:,.0f}"
        if abs(x) < 1e-4:
            return f"{x:.{digits}g}"
        text = f"{x:.{digits}g}"
        return text if "e" not in text else f"{x:.{digits + 4}f}".rstrip("0")
    return str(value)


def value_in_words(value) -> str:
    """A setting's value in words: lists joined with commas, booleans as yes/no, numbers by :func:`format_number`.

    Parameters
    ----------
    value : object
        Any JSON-like value.

    Returns
    -------
    str
        ``"score_image, score_text"`` for a list, ``"no"`` for False, ``"2,000"`` for 2000.0,
        ``"not set"`` for None, ``"a: 1; b: yes"`` for a dict.
    """
    if value is None:
        return "not set"
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return "; ".join(f"{column_in_words(k)}: {value_in_words(v)}" for k, v in value.items()) or "none"
    if isinstance(value, (list, tuple, np.ndarray)):
        return ", ".join(value_in_words(v) for v in value) or "none"
    if isinstance(value, (bool, np.bool_, int, float, np.integer, np.floating)):
        return format_number(value, digits=4)
    return str(value)


def column_in_words(name: object) -> str:
    """A column or setting name in words (``target_marginal_precision`` -> ``target marginal precision``).

    Parameters
    ----------
    name : object
        The name.

    Returns
    -------
    str
        Underscores as spaces.
    """
    return str(name).replace("_", " ").strip() or str(name)


def table_for_people(frame: pd.DataFrame, digits: int = 3) -> pd.DataFrame:
    """A table of text: column names in words, numbers by :func:`format_number`, a dash for missing values.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table (not modified).
    digits : int, optional
        Significant digits of non-integers.

    Returns
    -------
    pandas.DataFrame
        Same rows, every cell a ``str``.
    """
    columns = [column_in_words(c) for c in frame.columns]
    cells = [
        [format_number(v, digits) for v in frame.iloc[:, j].astype(object).tolist()] for j in range(frame.shape[1])
    ]
    return (
        pd.DataFrame(dict(zip(range(len(columns)), cells)), index=range(len(frame))).set_axis(columns, axis=1)
        if columns
        else pd.DataFrame(index=range(len(frame)))
    )


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
        if (
            pd.api.types.is_numeric_dtype(values)
            or pd.api.types.is_datetime64_any_dtype(values)
            or pd.api.types.is_timedelta64_dtype(values)
        ):
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
    cells = [
        out.iloc[:, j].to_numpy(dtype=object)
        for j in range(out.shape[1])
        if not pd.api.types.is_numeric_dtype(out.iloc[:, j])
    ]
    carriage_return = any(isinstance(v, str) and "\r" in v for v in (*out.columns, *(v for c in cells for v in c)))
    return out.to_csv(index=False, lineterminator="\r\n" if carriage_return else "\n").encode()
