"""The decision record: the choices of a meeting, from every page, in one document.

Each item is one decision with its consequence in a plain sentence, the figures and
tables behind it, the user's annotation and its provenance (data fingerprint,
settings, engine version, time, a link that reopens the view). The record is
written as JSON (read back by :func:`read_record_json`), as one self-contained HTML
page (interactive figures, plotly.js inlined once; every user string escaped) and
as PDF (the HTML printed by headless Chromium).
"""

from __future__ import annotations

import base64
import datetime as _dt
import hashlib
import html
import json
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio

from .errors import InputError
from .reporting import (
    ENGINE_VERSION,
    WIDE_COLUMNS,
    Facts,
    ReportSection,
    column_in_words,
    csv_bytes,
    json_safe,
    render_html,
    safe_href,
    table_for_people,
    value_in_words,
)
from .resources import chromium_path
from .untrusted import parse_json

__all__ = [
    "RecordItem",
    "new_item",
    "data_sha256",
    "record_json",
    "read_record_json",
    "record_html",
    "record_pdf",
    "RECORD_FORMAT",
    "CHROMIUM",
    "MAX_RECORD_BYTES",
    "MAX_RECORD_ITEMS",
    "MAX_RECORD_CELLS",
    "FIGURE_TRACES",
]

RECORD_FORMAT = "opstudio-decision-record/1"
#: the browser that prints the PDF: ``OPSTUDIO_CHROMIUM`` when set, else Debian's ``/usr/bin/chromium``
CHROMIUM = chromium_path()


@dataclass(frozen=True)
class RecordItem:
    """One decision: what it is, the sentence that says it, what supports it, and where it came from.

    Attributes
    ----------
    kind : str
        The page that made the decision (``"operating point"``, ``"batch decisions"`` ...).
    title : str
        Heading of the item in the record.
    sentence : str
        The decision and its consequence in one plain sentence.
    tables : tuple of (str, pandas.DataFrame)
        Named tables behind the decision, in the order shown.
    figures : tuple of (str, plotly.graph_objects.Figure)
        Named figures behind the decision, in the order shown.
    provenance : dict
        ``data_sha256``, ``settings``, ``engine_version``, ``time`` (UTC, ISO 8601) and
        ``link`` (the URL that reopens the view), as written by :func:`new_item`.
    note : str
        The user's annotation (empty when none).
    """

    kind: str
    title: str
    sentence: str
    tables: tuple[tuple[str, pd.DataFrame], ...] = ()
    figures: tuple[tuple[str, go.Figure], ...] = ()
    provenance: dict = field(default_factory=dict)
    note: str = ""

    def annotated(self, note: str) -> RecordItem:
        """The same item with the user's annotation.

        Parameters
        ----------
        note : str
            The annotation (converted with ``str``); replaces any earlier one.

        Returns
        -------
        RecordItem
            A copy with ``note`` set; the item itself is frozen.
        """
        return replace(self, note=str(note))

    def as_dict(self) -> dict:
        return json_safe(
            {
                "kind": self.kind,
                "title": self.title,
                "sentence": self.sentence,
                "note": self.note,
                "provenance": self.provenance,
                "tables": [
                    {
                        "name": n,
                        "columns": [str(c) for c in t.columns],
                        "rows": t.astype(object).where(t.notna(), None).values.tolist(),
                    }
                    for n, t in self.tables
                ],
                "figures": [{"name": n, "plotly": json.loads(pio.to_json(f))} for n, f in self.figures],
            }
        )


def new_item(
    kind: str,
    title: str,
    sentence: str,
    *,
    tables=(),
    figures=(),
    data_fingerprint: str = "",
    settings: dict | None = None,
    link: str = "",
) -> RecordItem:
    """A record item stamped with its provenance (engine version and the time, UTC).

    Parameters
    ----------
    kind, title, sentence : str
        See :class:`RecordItem`.
    tables : iterable of (str, pandas.DataFrame), optional
        Named tables behind the decision.
    figures : iterable of (str, plotly.graph_objects.Figure), optional
        Named figures behind the decision.
    data_fingerprint : str, optional
        SHA-256 of the data the decision was made on.
    settings : dict, optional
        The settings of the view (made JSON-safe with :func:`~engine.reporting.json_safe`).
    link : str, optional
        URL that reopens the view with these settings.

    Returns
    -------
    RecordItem
        The item with ``provenance`` filled and no note.
    """
    provenance = {
        "data_sha256": data_fingerprint,
        "settings": json_safe(settings or {}),
        "engine_version": ENGINE_VERSION,
        "time": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "link": link,
    }
    return RecordItem(kind, title, sentence, tuple(tables), tuple(figures), provenance)


def data_sha256(*arrays) -> str:
    """SHA-256 of arrays (their dtype, shape and bytes, in order): the data fingerprint of a result computed in memory.

    Parameters
    ----------
    *arrays : array_like or None
        The data the decision was made on (``None`` entries are recorded as absent).

    Returns
    -------
    str
        64 hexadecimal digits.
    """
    digest = hashlib.sha256()
    for a in arrays:
        if a is None:
            digest.update(b"none;")
            continue
        a = np.ascontiguousarray(a)
        if a.dtype == object:
            a = np.ascontiguousarray(a.astype(str))
        digest.update(f"{a.dtype.str};{a.shape};".encode())
        digest.update(a.tobytes())
    return digest.hexdigest()


def record_json(items) -> str:
    """The whole record as JSON (re-imported by :func:`read_record_json`).

    Parameters
    ----------
    items : iterable of RecordItem
        The record's items, in order.

    Returns
    -------
    str
        A JSON object with ``format`` (:data:`RECORD_FORMAT`), ``engine_version`` and
        ``items`` (each :meth:`RecordItem.as_dict`); inf and NaN are written as null.
    """
    return json.dumps(
        {"format": RECORD_FORMAT, "engine_version": ENGINE_VERSION, "items": [i.as_dict() for i in items]}, indent=1
    )


#: largest record file imported (a meeting's 100 items with their figures take about 8 MB)
MAX_RECORD_BYTES = 32 * 1024 * 1024
#: most items of an imported record
MAX_RECORD_ITEMS = 500
#: most table cells of an imported record, all tables together
MAX_RECORD_CELLS = 2_000_000
#: longest text (title, sentence, note, provenance value) of an imported item
MAX_TEXT_CHARS = 20_000
#: a table of more rows is summarised in the body (its first rows) and given in full in the appendix
BODY_ROWS = 12
#: the appendix prints tables of at most this many rows; a longer one (a batch's decided items) is attached as
#: CSV to the HTML record and complete in the JSON record, not printed
APPENDIX_ROWS = 40
#: a table of more columns is printed on a landscape page in the body too (on a portrait page its headers would
#: be cut into syllables)
LANDSCAPE_COLUMNS = 12
#: plotly trace types an imported figure may hold (none of them loads anything from the network)
FIGURE_TRACES = frozenset(
    {"scatter", "scattergl", "bar", "heatmap", "histogram", "histogram2d", "contour", "box", "violin"}
)
#: layout parts of an imported figure that could load images or map styles from the network, or set them on a
#: click (menus and sliders carry layout changes); maps load only for map traces, which are refused
_FETCHING_LAYOUT = ("images", "mapbox", "map", "updatemenus", "sliders")
#: the only pseudo-HTML tags kept in an imported figure's text (plotly's own; no attributes)
_FIGURE_TAG = re.compile(r"<(?!/?(?:br|b|i|em|sub|sup|extra)\s*/?>)[^>]*>", re.IGNORECASE)
_SCALARS = (str, int, float, bool, type(None))


class _Refused(Exception):
    """What is wrong with an imported record, in words (turned into the one InputError)."""


def _text(value, where: str, *, optional: bool = False) -> str:
    if value is None and optional:
        return ""
    if not isinstance(value, str):
        raise _Refused(f"{where} is {_kind(value)}, not text")
    if len(value) > MAX_TEXT_CHARS:
        raise _Refused(f"{where} has {len(value):,} characters (at most {MAX_TEXT_CHARS:,})")
    return value


def _kind(value) -> str:
    return {
        dict: "an object",
        list: "a list",
        str: "text",
        bool: "a boolean",
        type(None): "null",
        int: "a number",
        float: "a number",
    }.get(type(value), type(value).__name__)


def _object(value, where: str) -> dict:
    if not isinstance(value, dict):
        raise _Refused(f"{where} is {_kind(value)}, not an object")
    return value


def _list(value, where: str) -> list:
    if not isinstance(value, list):
        raise _Refused(f"{where} is {_kind(value)}, not a list")
    return value


def _clean_figure_text(node):
    """Every string of a figure with plotly's markup reduced to line breaks and emphasis (no links, no styles)."""
    if isinstance(node, str):
        return _FIGURE_TAG.sub("", node)
    if isinstance(node, dict):
        return {k: _clean_figure_text(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_clean_figure_text(v) for v in node]
    return node


def _safe_layout(layout: dict) -> dict:
    return {k: v for k, v in layout.items() if k not in _FETCHING_LAYOUT}


def _figure(d, where: str) -> tuple[str, go.Figure]:
    d = _object(d, where)
    name = _text(d.get("name"), f"{where} 'name'")
    spec = _object(d.get("plotly"), f"{where} 'plotly'")
    data = _list(spec.get("data", []), f"{where} 'plotly.data'")
    for j, trace in enumerate(data):
        kind = _object(trace, f"{where} trace {j + 1}").get("type", "scatter")
        if not isinstance(kind, str) or kind not in FIGURE_TRACES:
            raise _Refused(
                f"{where} trace {j + 1} is of type {str(kind)[:40]!r}; a record's figures are "
                f"{', '.join(sorted(FIGURE_TRACES))}"
            )
    layout = _safe_layout(_object(spec.get("layout", {}), f"{where} 'plotly.layout'"))
    template = layout.get("template")
    if isinstance(template, dict):  # a template's layout applies too; trace defaults only of the types allowed
        layout["template"] = {
            "layout": _safe_layout(template["layout"]) if isinstance(template.get("layout"), dict) else {},
            "data": {k: v for k, v in template["data"].items() if k in FIGURE_TRACES}
            if isinstance(template.get("data"), dict)
            else {},
        }
    try:
        figure = go.Figure({"data": _clean_figure_text(data), "layout": _clean_figure_text(layout)})
    except (ValueError, TypeError, KeyError) as exc:
        first = str(exc).strip().splitlines()[0][:160] if str(exc).strip() else type(exc).__name__
        raise _Refused(f"{where} is not a plotly figure ({first})") from None
    return name, figure


def _table(d, where: str) -> tuple[str, pd.DataFrame, int]:
    d = _object(d, where)
    name = _text(d.get("name"), f"{where} 'name'")
    columns = _list(d.get("columns"), f"{where} 'columns'")
    for c in columns:
        _text(c, f"{where} column name")
    rows = _list(d.get("rows"), f"{where} 'rows'")
    width = len(columns)
    for r, row in enumerate(rows):
        if not isinstance(row, list) or len(row) != width:
            raise _Refused(f"{where} row {r + 1} is not a list of {width} cells")
    flat = [v for row in rows for v in row]
    bad = next((v for v in flat if not isinstance(v, _SCALARS)), _SCALARS)
    if bad is not _SCALARS:
        raise _Refused(f"{where} has a cell that is {_kind(bad)}; cells are text, numbers, booleans or null")
    return name, pd.DataFrame(rows, columns=columns), len(flat)


def _setting(value, where: str, depth: int = 0):
    if isinstance(value, str):
        return _text(value, where)
    if isinstance(value, _SCALARS):
        return value
    if depth < 4 and isinstance(value, list):
        return [_setting(v, where, depth + 1) for v in value]
    if depth < 4 and isinstance(value, dict):
        return {str(k): _setting(v, where, depth + 1) for k, v in value.items()}
    raise _Refused(f"{where} is nested too deep or is not a JSON value")


def _provenance(d, where: str) -> dict:
    d = _object(d, where)
    out = {
        key: _text(d.get(key), f"{where} {key!r}", optional=True)
        for key in ("data_sha256", "engine_version", "time", "link")
    }
    if out["link"] and not safe_href(out["link"]):
        raise _Refused(f"{where} 'link' is not a web address of the studio (only http, https or /page links)")
    settings = _object(d.get("settings") if d.get("settings") is not None else {}, f"{where} 'settings'")
    out["settings"] = {str(k): _setting(v, f"{where} setting {str(k)[:40]!r}") for k, v in settings.items()}  # type: ignore[assignment]
    return out


def _item_from_dict(d, number: int) -> tuple[RecordItem, int]:
    where = f"item {number}"
    d = _object(d, where)
    tables, cells = [], 0
    for k, t in enumerate(_list(d.get("tables", []), f"{where} 'tables'"), start=1):
        name, frame, n = _table(t, f"{where} table {k}")
        tables.append((name, frame))
        cells += n
    figures = tuple(
        _figure(f, f"{where} figure {k}")
        for k, f in enumerate(_list(d.get("figures", []), f"{where} 'figures'"), start=1)
    )
    item = RecordItem(
        _text(d.get("kind"), f"{where} 'kind'"),
        _text(d.get("title"), f"{where} 'title'"),
        _text(d.get("sentence"), f"{where} 'sentence'"),
        tuple(tables),
        figures,
        _provenance(d.get("provenance", {}), f"{where} 'provenance'"),
        _text(d.get("note", ""), f"{where} 'note'", optional=True),
    )
    return item, cells


def read_record_json(text: str | bytes, *, max_bytes: int = MAX_RECORD_BYTES) -> list[RecordItem]:
    """Items of a record written by :func:`record_json`, checked field by field before anything is shown.

    Every field must have the shape :func:`record_json` writes: texts are text (shown as
    text, never as markdown or HTML), settings are JSON values, table rows have one cell per
    column, figures hold only plotly trace types that load nothing (their text keeps only line
    breaks and emphasis; layout images and maps are dropped), the link is an ``http``/``https``
    address or a ``/page`` path.

    Parameters
    ----------
    text : str or bytes
        The JSON text of the record.
    max_bytes : int, optional
        Largest file accepted (:data:`MAX_RECORD_BYTES`); nesting is limited as for every JSON
        document (:func:`engine.untrusted.parse_json`).

    Returns
    -------
    list of RecordItem
        The items in their recorded order, tables and figures rebuilt.

    Raises
    ------
    InputError
        One message: not a decision record, too large, or the first field of the wrong shape
        (named by item and field); nothing is imported then.
    """
    try:
        try:
            record = parse_json(text, what="file", max_bytes=max_bytes)
        except InputError as exc:  # too large, too deep, not UTF-8, not JSON: said the same way
            raise _Refused(
                str(exc).replace(" It was not read.", "").rstrip(".")[:1].lower()
                + str(exc).replace(" It was not read.", "").rstrip(".")[1:]
            ) from None
        if not isinstance(record, dict) or record.get("format") != RECORD_FORMAT:
            raise _Refused("its 'format' is not " + RECORD_FORMAT)
        entries = _list(record.get("items"), "'items'")
        if len(entries) > MAX_RECORD_ITEMS:
            raise _Refused(f"it holds {len(entries):,} items (at most {MAX_RECORD_ITEMS:,} are imported)")
        items, cells = [], 0
        for number, d in enumerate(entries, start=1):
            item, n = _item_from_dict(d, number)
            cells += n
            if cells > MAX_RECORD_CELLS:
                raise _Refused(f"its tables hold more than {MAX_RECORD_CELLS:,} cells")
            items.append(item)
        return items
    except _Refused as exc:
        raise InputError(
            f"This is not a decision record written by the studio (format {RECORD_FORMAT}): {exc}. "
            "Nothing was imported."
        ) from None


_SETTING_WORDS = {
    "alpha": "α (share of rows allowed to decide unlike the full ensemble)",
    "target": "target marginal precision",
    "capacity": "capacity (reviews)",
    "neg_only": "negative exits only",
    "bootstrap_replicates": "bootstrap replicates",
    "grid_size": "grid size (bins per classifier)",
    "beta": "β",
    "budget": "budget rule",
    "classifiers": "classifiers",
    "classifier": "classifier",
    "rule": "combination rule",
    "family": "path family",
    "loss": "loss",
    "batch": "batch",
    "source": "data",
    "segment": "segment column",
    "demographic_parity": "demographic parity bound",
}
_PERCENT_SETTINGS = frozenset({"alpha"})
_SHA256 = re.compile(r"[0-9a-f]{64}")


def _setting_words(key: str, value) -> tuple[str, str]:
    label = _SETTING_WORDS.get(key, column_in_words(key))
    if key in _PERCENT_SETTINGS and isinstance(value, (int, float)) and not isinstance(value, bool):
        return label, f"{100 * value:.2f} %"
    return label, value_in_words(value)


def _time_words(stamp: str) -> str:
    try:
        t = _dt.datetime.fromisoformat(stamp).astimezone(_dt.timezone.utc)
    except (TypeError, ValueError):
        return stamp or "not recorded"
    return t.strftime("%d %b %Y, %H:%M UTC").lstrip("0")


def _provenance_facts(item: RecordItem) -> Facts:
    p = item.provenance if isinstance(item.provenance, dict) else {}
    sha = str(p.get("data_sha256") or "")
    link = str(p.get("link") or "")
    rows = [
        ("Decision", item.kind, ""),
        ("Data (SHA-256)", sha if _SHA256.fullmatch(sha) else "not recorded", ""),
        *(
            (label, text, "")
            for label, text in (_setting_words(str(k), v) for k, v in (p.get("settings") or {}).items())
        ),
        ("Engine version", str(p.get("engine_version") or "not recorded"), ""),
        ("Recorded", _time_words(str(p.get("time") or "")), ""),
    ]
    if safe_href(link):
        rows.append(
            ("Reopen this view", link if link.startswith("http") else f"{link} (on the studio's address)", link)
        )
    return Facts(tuple(rows))


def _transposed(shown: pd.DataFrame, frame: pd.DataFrame) -> pd.DataFrame:
    """A table of text with its columns as rows; a text column naming the rows becomes the header (its name in the
    corner)."""
    out = shown.T.reset_index()
    out.columns = ["", *(f"row {j + 1}" for j in range(out.shape[1] - 1))]
    first = frame.iloc[:, 0]
    if not pd.api.types.is_numeric_dtype(first) and first.is_unique:
        out.columns = [str(shown.columns[0]), *(str(v) for v in first.head(len(shown)))]
        out = out.iloc[1:]
    return out


def _body_table(frame: pd.DataFrame) -> pd.DataFrame:
    """The table as people read it: its first rows, numbers rounded; a wide table of few rows transposed."""
    shown = table_for_people(frame.head(BODY_ROWS))
    if frame.shape[1] > 8 and len(shown) <= 4:  # a wide comparison of few rows reads better as columns
        shown = _transposed(shown, frame)
    return shown


def _precise(value) -> str:
    if value is None or (isinstance(value, float) and value != value):
        return "–"
    return repr(float(value)) if isinstance(value, (float, np.floating)) else str(value)


def _appendix_table(frame: pd.DataFrame) -> tuple[pd.DataFrame, bool]:
    """The table at full precision, and whether it needs a landscape page: a wide table of up to 8 rows is
    transposed (its column names become rows), a wider one of more rows is printed across the page."""
    if frame.shape[1] <= WIDE_COLUMNS:
        return frame, False
    if len(frame) <= 8:
        text = pd.DataFrame(
            {j: [_precise(v) for v in frame.iloc[:, j].astype(object).tolist()] for j in range(frame.shape[1])}
        ).set_axis([str(c) for c in frame.columns], axis=1)
        return _transposed(text, frame), False
    return frame, True


def _attachment(name: str, frame: pd.DataFrame, file_name: str) -> str:
    data = base64.b64encode(csv_bytes(frame)).decode()
    return (
        f"<p class='note'><a download='{html.escape(file_name, quote=True)}' "
        f"href='data:text/csv;base64,{data}'>{html.escape(name)} (CSV, {len(frame):,} rows)</a></p>"
    )


def _sections(item: RecordItem, number: int, appendix: list) -> list[ReportSection]:
    sections = [ReportSection(f"{number}. {item.title}", item.sentence, item.note and f"Note: {item.note}")]
    sections += [ReportSection(name, figure, level=3) for name, figure in item.figures]
    for name, table in item.tables:
        label = f"A{len(appendix) + 1}"
        appendix.append((label, f"{number}. {item.title}: {name}", table, number))
        rows = len(table)
        note = (
            f"First {BODY_ROWS} of {rows:,} rows; all of them in Appendix {label}."
            if rows > BODY_ROWS
            else f"Full precision in Appendix {label}."
        )
        shown = _body_table(table)
        sections.append(ReportSection(name, shown, note, level=3, landscape=shown.shape[1] > LANDSCAPE_COLUMNS))
    sections.append(ReportSection("Provenance", _provenance_facts(item), level=3))
    return sections


def _appendix_sections(appendix: list) -> list[ReportSection]:
    if not appendix:
        return []
    out = [
        ReportSection(
            "Appendix: the tables at full precision",
            "Every table of the record with its "
            "original column names and every digit; long tables are also attached as CSV files "
            "(in the HTML record) and are complete in the JSON record.",
            anchor="appendix",
            new_page=True,
        )
    ]
    for label, heading, table, number in appendix:
        rows = len(table)
        attachment = _attachment(f"Download {heading}", table, f"item{number}_{label}.csv")
        if rows > APPENDIX_ROWS:  # not printed: hundreds of rows are read in a spreadsheet, not on paper
            out.append(
                ReportSection(
                    f"{label}. {heading}",
                    f"{rows:,} rows of {table.shape[1]} columns: attached "
                    "as a CSV file to the HTML record, and complete in the JSON record.",
                    level=3,
                    anchor=label,
                    attachment=attachment,
                )
            )
        else:
            shown, landscape = _appendix_table(table)
            out.append(
                ReportSection(
                    f"{label}. {heading}",
                    shown,
                    level=3,
                    full_precision=True,
                    anchor=label,
                    attachment=attachment,
                    landscape=landscape,
                )
            )
    # the appendix's heading goes on the page of its first table (alone on a portrait page it would waste one)
    return [replace(out[0], landscape=out[1].landscape), *out[1:]]


def record_html(items, title: str = "Decision record", *, static: bool = False) -> str:
    """One self-contained HTML page: every item's sentence, note, figures, tables and provenance, then an appendix.

    The body gives numbers for people (thousands separators, three significant digits, long
    tables summarised by their first rows); the appendix gives every table at full precision
    (and, in the HTML, as a CSV attachment). Provenance is in words; the link that reopens a
    view is a real link. Figures have no mode bar and are never split across printed pages.

    Parameters
    ----------
    items : sequence of RecordItem
        The record's items, numbered from 1 in this order.
    title : str, optional
        Page title and top heading.
    static : bool, optional
        Static figures (for the PDF: faster to print, nothing to hover).

    Returns
    -------
    str
        The HTML page (plotly.js inlined once, every user string escaped).

    Raises
    ------
    InputError
        ``items`` is empty.
    """
    if not items:
        raise InputError("The decision record is empty: add items from the pages first.")
    appendix: list = []
    sections = [s for n, item in enumerate(items, start=1) for s in _sections(item, n, appendix)]
    sections += _appendix_sections(appendix)
    meta = {
        "items": len(items),
        "engine version": ENGINE_VERSION,
        "written": _time_words(_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")),
    }
    return render_html(title, meta, sections, static=static)


def record_pdf(html_text: str, *, chromium: str = CHROMIUM, timeout: float = 120) -> bytes:
    """The HTML record printed to PDF by headless Chromium (the figures drawn by plotly.js first).

    Parameters
    ----------
    html_text : str
        The page written by :func:`record_html`.
    chromium : str, optional
        Path of the Chromium executable; ``chromium`` on ``PATH`` is used when it does not exist.
    timeout : float, optional
        Seconds Chromium may take to print.

    Returns
    -------
    bytes
        The PDF file.

    Raises
    ------
    InputError
        Chromium is not installed (``apt-get install chromium``) or failed.
    """
    if not Path(chromium).exists() and shutil.which("chromium") is None:
        raise InputError(
            "PDF export needs Chromium (apt-get install chromium); export the HTML and print it from a browser instead."
        )
    with tempfile.TemporaryDirectory() as tmp:  # the export's own files, removed at once
        page, pdf = Path(tmp) / "record.html", Path(tmp) / "record.pdf"
        page.write_text(html_text, encoding="utf-8")
        cmd = [
            chromium if Path(chromium).exists() else "chromium",
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--run-all-compositor-stages-before-draw",
            "--virtual-time-budget=10000",
            f"--print-to-pdf={pdf}",
            "--no-pdf-header-footer",
            page.as_uri(),
        ]
        try:
            subprocess.run(cmd, capture_output=True, timeout=timeout, check=False)
        except subprocess.TimeoutExpired:
            raise InputError("Chromium took too long to print the record; export the HTML instead.") from None
        if not pdf.exists() or pdf.stat().st_size == 0:
            raise InputError("Chromium could not print the record; export the HTML instead.")
        return pdf.read_bytes()
