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
    "safe_href",
    "ENGINE_VERSION",
    "WIDE_COLUMNS",
    "FIGURE_FRAME",
    "PAGE_MARGIN_MM",
    "PRINT_WIDTH",
]

#: the engine's version (``engine.__version__``), written into every record and policy
ENGINE_VERSION = __version__


#: colour of the thin frame round a printed figure (a figure is found on a page image by it, and a split one shows)
FIGURE_FRAME = "#8a9bb5"
#: the printed page: A4 with these margins (mm); the text is 186 mm wide (703 CSS pixels)
PAGE_MARGIN_MM = (14, 12)
#: width of the printed text in CSS pixels (A4's 210 mm less the side margins, at 96 per inch)
PRINT_WIDTH = int((210 - 2 * PAGE_MARGIN_MM[1]) / 25.4 * 96)
#: font size of a table in CSS pixels (8 pt): what the column widths are estimated for
TABLE_FONT_PX = 8 * 96 / 72

# print-grade: a report's type sizes; no word or number is ever broken across lines (tables too wide for the page
# are split into groups of columns instead, see _column_groups; a long address breaks only after "&", "?" or "/");
# a heading stays with what follows it, figures and short tables are never split across pages, no plotly mode bar
_CSS = (
    """
@page{size:A4;margin:TOPmm SIDEmm}
body{font-family:"Helvetica Neue",Helvetica,Arial,"DejaVu Sans",sans-serif;font-size:10pt;line-height:1.35;
color:#222;margin:1.5em auto;max-width:1100px;padding:0 1em;overflow-wrap:normal;word-break:normal;hyphens:manual}
h1{font-size:17pt;margin:0 0 6pt}h2{font-size:12.5pt;margin:16pt 0 4pt;border-bottom:1px solid #ddd}
h3{font-size:10pt;margin:9pt 0 3pt}h1,h2,h3{break-after:avoid;page-break-after:avoid}
p{margin:3pt 0 6pt}p.decision{font-size:11pt;margin-top:4pt}.details,.note{color:#555;font-size:8.5pt}
table{border-collapse:collapse;font-size:8pt;margin:2pt 0 4pt}
td,th{border:1px solid #ccc;padding:1.5pt 4pt;text-align:right;vertical-align:top}
th{background:#f4f4f4}td.t,th.t{text-align:left}td.n,.nw{white-space:nowrap}
.meta{font-size:8.5pt;color:#555}.facts{font-size:7.5pt;width:100%}.facts td,.facts th{text-align:left}
.facts th{width:1%;white-space:nowrap;font-weight:normal;color:#555}.facts td{overflow-wrap:break-word}
.block{break-inside:avoid;page-break-inside:avoid}
.figure{break-inside:avoid;page-break-inside:avoid;width:100%;max-width:100%;overflow:hidden}
.modebar,.modebar-container{display:none!important}
.chapter{break-before:page;page-break-before:always}
@page landscape{size:A4 landscape;margin:12mm}.landscape{page:landscape}
@media print{body{max-width:none;margin:0;padding:0}.figure{border:1px solid FRAME;box-sizing:border-box}}
""".replace("FRAME", FIGURE_FRAME)
    .replace("TOP", str(PAGE_MARGIN_MM[0]))
    .replace("SIDE", str(PAGE_MARGIN_MM[1]))
)
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
        Printed from the top of a new page (a chapter: the appendix).
    style : str
        Class of a text paragraph (``"decision"``: the item's sentence, ``"details"``: small print).
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
    style: str = ""


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
        Key-value facts shown under the title in one line (keys and values escaped).
    sections : sequence of ReportSection
        The page's sections, in order.
    static : bool, optional
        Laid out for paper: static figures at the paper's width (faster to print, no hover layers) and
        tables fitted to the printed text's width.

    Returns
    -------
    str
        The HTML document; it opens offline. Figures have no mode bar and are never split across
        printed pages; a table too wide for the page is split into groups of columns (its first
        column repeated when it names the rows), so no word or number is broken across lines.
    """
    parts = [
        f"<!DOCTYPE html><html><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body><h1>{html.escape(title)}</h1>"
    ]
    if meta:
        facts = " · ".join(f"{html.escape(str(k))}: {html.escape(str(v))}" for k, v in meta.items())
        parts.append(f"<p class='meta'>{facts}</p>")
    width = PRINT_WIDTH if static else 1060
    plotly_included = False
    for section in sections:
        c = section.content
        if isinstance(c, go.Figure):
            body = "<div class='figure'>" + _figure_html(c, not plotly_included, static) + "</div>"
            plotly_included = True
        elif isinstance(c, pd.DataFrame):
            body = _table_html(c, section.full_precision, width)
        elif isinstance(c, Facts):
            body = _facts_html(c)
        elif section.style:
            body = f"<p class='{html.escape(section.style, quote=True)}'>{_unbroken(str(c))}</p>" if c else ""
        else:
            body = f"<p>{_unbroken(str(c))}</p>" if c else ""
        parts.append(_block(section, body))
    parts.append("</body></html>")
    return "\n".join(parts)


#: a number, a date or a range of them written with hyphens or dashes ("2025-07-28", "0–736", "−0.85"): a browser
#: may break a line after a hyphen or a dash, which would cut a number in two
_NUMBER_RUN = re.compile(r"[−+-]?[$€£¥]?\d[\d.,:/]*(?:[-–−]\d[\d.,:/]*)+")


def _unbroken(text: str) -> str:
    """Text escaped, its numbers and dates with hyphens kept on one line."""
    out, last = [], 0
    for match in _NUMBER_RUN.finditer(text):
        out += [html.escape(text[last : match.start()]), f"<span class='nw'>{html.escape(match.group())}</span>"]
        last = match.end()
    return "".join(out) + html.escape(text[last:])


def _block(section: ReportSection, body: str) -> str:
    """A section's heading, content, attachment and note; kept on one page unless it is a long table."""
    level = min(max(int(section.level), 2), 6)
    anchor = f" id='{html.escape(section.anchor, quote=True)}'" if section.anchor else ""
    head = f"<h{level}{anchor}>{html.escape(section.heading)}</h{level}>" if section.heading else ""
    body += section.attachment
    if section.note:
        body += f"<p class='note'>{html.escape(section.note)}</p>"
    c = section.content
    short = not isinstance(c, pd.DataFrame) or len(c) <= 40
    block = f"<div class='block'>{head}{body}</div>" if short else head + body
    if section.new_page:
        block = f"<div class='chapter'>{block}</div>"
    return f"<div class='landscape'>{block}</div>" if section.landscape else block


#: width of a printed figure in CSS pixels: the printed text's width less the frame; plotly draws a figure at the
#: browser window's width when it loads, which is not the paper's, so a printed figure has this width of its own
PRINT_FIGURE_WIDTH = PRINT_WIDTH - 13
#: height of a printed figure (CSS pixels): three figures, or two and a table, to a page
PRINT_FIGURE_HEIGHT = 280
#: font size of a printed figure's text (CSS pixels)
PRINT_FIGURE_FONT = 11


def _wrapped(text: str, width: int) -> str:
    """A title broken into lines of at most ``width`` characters (plotly draws one line at any length)."""
    lines: list[str] = []
    for word in text.split(" "):
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return "<br>".join(lines)


def _fits(text: str, pixels: float, size: float) -> str:
    """``text`` wrapped to lines of ``pixels`` at font ``size`` (unless it already has its own line breaks)."""
    per_line = max(int(pixels / (0.6 * size)), 8)
    return _wrapped(text, per_line) if "<br>" not in text and len(text) > per_line else text


def _printed(figure: go.Figure) -> go.Figure:
    """The figure as printed: the paper's width and a third of a page high; the legend in a row of its own under
    the axis (never over its tick labels, however they are rotated); titles on lines that fit (a title or an axis
    title longer than the figure is cut off at its edge, with no sign that anything is missing)."""
    f = go.Figure(figure)
    size = PRINT_FIGURE_FONT
    title = _fits(f.layout.title.text or "", PRINT_FIGURE_WIDTH - 80, 1.3 * size)
    title_lines = title.count("<br>") + 1 if title else 0
    height = PRINT_FIGURE_HEIGHT + 16 * max(title_lines - 1, 0) + 19 * max(_legend_rows(f) - 1, 0)
    plot_height = height - 40 - 16 * title_lines - 70
    for axis in ("yaxis", "yaxis2"):
        text = getattr(f.layout, axis).title.text if getattr(f.layout, axis, None) is not None else None
        if text:
            f.layout[axis].title.text = _fits(text, plot_height, size)
    f.update_layout(
        width=PRINT_FIGURE_WIDTH,
        height=height,
        autosize=False,
        font_size=size,
        title=dict(
            text=title,
            font_size=1.3 * size,
            x=0.012,
            xref="container",
            xanchor="left",
            y=1,
            yref="paper",
            yanchor="bottom",
            pad=dict(b=10),
            automargin=True,
        ),
        margin=dict(t=10, b=8, l=60, r=20, autoexpand=True),
        legend=dict(orientation="h", yref="container", y=0.005, yanchor="bottom", x=0, xanchor="left", font_size=10),
    )
    f.update_xaxes(automargin=True)
    f.update_yaxes(automargin=True)
    return f


def _legend_rows(figure: go.Figure) -> int:
    """Rows the printed legend takes (entries laid left to right across the figure's width): the figure is made
    taller by as many rows, so that the plot keeps its height."""
    if figure.layout.showlegend is False:
        return 0
    names = [t.name for t in figure.data if t.name and t.showlegend is not False]
    if len(names) < 2 and figure.layout.showlegend is not True:
        return 0
    # plotly aligns a horizontal legend's entries in columns as wide as its widest entry (symbol, gap, text at 10 px)
    widest = max((45 + 6.2 * len(_plain(str(name))) for name in names), default=0.0)
    per_row = max(int(PRINT_FIGURE_WIDTH // widest), 1) if widest else 1
    return -(-len(names) // per_row)


def _plain(text: str) -> str:
    return re.sub(r"<[^>]+>", "", text)


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


#: a cell that reads as a number, an amount, a share, a duration, a date or a dash: right-aligned, never broken
_NUMBER_CELL = re.compile(r"^[−+-]?[$€£¥]?[−+-]?[\d.,]+(\s?(%|ms|s|×))?(\s\(.*\))?$|^[—–-]$|^\d{4}-\d{2}-\d{2}$")
#: a cell that is only a number (not a date or a name): a first column of these does not name the rows
_PLAIN_NUMBER = re.compile(r"^[−+-]?[\d.,]+$")
#: character widths of DejaVu Sans (the widest of the usual sans fonts) in ems: the printed tables' columns are
#: estimated with them, so a table laid out for them fits with any narrower font
_NARROW, _WIDE = set("ijlt.,:;'|!()[] -/"), set("mwMW%—…")


def _text_width(text: str, bold: bool = False) -> float:
    """Width of ``text`` in CSS pixels at the tables' font size (an estimate on the safe side)."""
    ems = sum(0.32 if c in _NARROW else 0.98 if c in _WIDE else 0.76 if c.isupper() else 0.64 for c in text)
    return ems * TABLE_FONT_PX * (1.1 if bold else 1.0)


def _column_width(label: str, cells: list[str]) -> float:
    """Narrowest a column can be without breaking a word: its label wraps between words, a number or a short
    cell stays on one line, a longer text cell wraps between words."""
    words = [_text_width(w, bold=True) for w in str(label).split()] or [0.0]
    longest = max(words)
    for cell in cells:
        if _NUMBER_CELL.match(cell) or len(cell) <= 16 or " " not in cell:
            longest = max(longest, _text_width(cell))
        else:
            longest = max(longest, *(_text_width(w) for w in cell.split()))
    return longest + 10  # padding and border


def _column_groups(frame: pd.DataFrame, width: float) -> list[list[int]]:
    """Positions of the columns of each printed part of a table: all of them when they fit ``width``, else groups
    that each fit, every group after the first repeating the first column when it names the rows (text)."""
    cells = frame.astype(str).to_numpy()
    widths = [_column_width(str(c), list(cells[:, j])) for j, c in enumerate(frame.columns)]
    if sum(widths) <= width or frame.shape[1] <= 2:
        return [list(range(frame.shape[1]))]
    key = [0] if not all(_PLAIN_NUMBER.match(v) for v in cells[:, 0]) else []
    groups, current, used = [], list(key), sum(widths[j] for j in key)
    for j in range(len(key), frame.shape[1]):
        if used + widths[j] > width and len(current) > len(key):
            groups.append(current)
            current, used = list(key), sum(widths[k] for k in key)
        current.append(j)
        used += widths[j]
    groups.append(current)
    return groups


def _table_html(frame: pd.DataFrame, full_precision: bool, width: float = PRINT_WIDTH) -> str:
    """The table as HTML; a table of text (the presentation layer's) too wide for ``width`` is split into groups
    of columns, each a table of its own, so that no header or cell is ever cut into pieces."""
    if full_precision or not all(
        pd.api.types.is_object_dtype(t) or pd.api.types.is_string_dtype(t) for t in frame.dtypes
    ):
        return frame.to_html(
            index=False, escape=True, na_rep="–", border=0, float_format=_full if full_precision else "{:.6g}".format
        )
    groups = _column_groups(frame, width)
    return "".join(_text_table(frame.iloc[:, g]) for g in groups)


def _text_table(frame: pd.DataFrame) -> str:
    numeric = [
        all(_NUMBER_CELL.match(str(v)) or str(v) in ("not bounded", "yes", "no") for v in frame.iloc[:, j])
        for j in range(frame.shape[1])
    ]
    head = "".join(
        f"<th{'' if numeric[j] else ' class=t'}>{html.escape(str(c))}</th>" for j, c in enumerate(frame.columns)
    )
    rows = []
    for row in frame.itertuples(index=False):
        cells = []
        for j, v in enumerate(row):
            text = str(v)
            kind = "n" if numeric[j] or len(text) <= 16 or " " not in text else ""
            kind += "" if numeric[j] else " t"
            cells.append(f"<td class='{kind.strip()}'>{html.escape(text)}</td>")
        rows.append(f"<tr>{''.join(cells)}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def _facts_html(facts: Facts) -> str:
    rows = []
    for label, text, href in facts.rows:
        value = html.escape(str(text))
        link = safe_href(href)
        if link:
            value = f"<a href='{html.escape(link, quote=True)}'>{_breakable(str(text))}</a>"
        rows.append(f"<tr><th>{html.escape(str(label))}</th><td>{value}</td></tr>")
    return f"<table class='facts'>{''.join(rows)}</table>"


def _breakable(address: str) -> str:
    """An address escaped, with a line break allowed only after ``?``, ``&`` and ``/`` (never inside a word)."""
    return "".join(
        html.escape(part, quote=False) + ("<wbr>" if part in "?&/" else "") for part in re.split(r"([?&/])", address)
    )


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
