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
import io
import json
import math
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio

from .errors import InputError
from .presentation import WIDE_COLUMNS, column_label, format_value, present_table, rows_named_by, value_in_words
from .reporting import ENGINE_VERSION, Facts, ReportSection, csv_bytes, json_safe, render_html, safe_href
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
    "record_attachments",
    "public_url",
    "RECORD_FORMAT",
    "PUBLIC_URL_ENV",
    "MAX_RECORD_BYTES",
    "MAX_RECORD_ITEMS",
    "MAX_RECORD_CELLS",
    "FIGURE_TRACES",
]

RECORD_FORMAT = "opstudio-decision-record/1"


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
    details : str
        What stands behind the sentence, for whoever reads on (printed under it in small type).
    """

    kind: str
    title: str
    sentence: str
    tables: tuple[tuple[str, pd.DataFrame], ...] = ()
    figures: tuple[tuple[str, go.Figure], ...] = ()
    provenance: dict = field(default_factory=dict)
    note: str = ""
    details: str = ""

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
                "details": self.details,
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
    details: str = "",
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
    details : str, optional
        What stands behind the sentence. The item's sentence is the first sentence of ``sentence`` (the
        decision, read in one breath); any sentences after it come first in the details.

    Returns
    -------
    RecordItem
        The item with ``provenance`` filled and no note.
    """
    sentence, more = _first_sentence(str(sentence))
    details = " ".join(filter(None, [more, str(details)]))
    provenance = {
        "data_sha256": data_fingerprint,
        "settings": json_safe(settings or {}),
        "engine_version": ENGINE_VERSION,
        "time": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "link": link,
    }
    return RecordItem(kind, title, sentence, tuple(tables), tuple(figures), provenance, details=details)


#: where one sentence ends and the next begins (a full stop and a capital: "… positives. With 95 % …")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def _first_sentence(text: str) -> tuple[str, str]:
    """The decision's sentence and what follows it (the item's details)."""
    parts = _SENTENCE_END.split(text.strip(), maxsplit=1)
    return parts[0], parts[1] if len(parts) > 1 else ""


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
BODY_ROWS = 20
#: the appendix prints tables of at most this many rows; a longer one (a batch's decided items) is only attached
#: as a CSV file (to the PDF and the HTML) and complete in the JSON record
APPENDIX_ROWS = 40
#: plotly trace types an imported figure may hold (none of them loads anything from the network)
FIGURE_TRACES = frozenset(
    {"scatter", "scattergl", "bar", "heatmap", "histogram", "histogram2d", "contour", "box", "violin"}
)
#: layout parts of an imported figure that could load images or map styles from the network, or set them on a
#: click (menus and sliders carry layout changes); maps load only for map traces, which are refused
_FETCHING_LAYOUT = ("images", "mapbox", "map", "updatemenus", "sliders")
#: the only pseudo-HTML tags kept in an imported figure's text (plotly's own; no attributes), after the "<"
_KEPT_TAG = re.compile(r"/?(?:br|b|i|em|sub|sup|extra)\s*/?>", re.IGNORECASE)
_SCALARS = (str, int, float, bool, type(None))
#: integers an imported record may hold (the studio writes 64-bit counts)
_MAX_INT = 2**63


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


def _number_refused(value) -> bool:
    if isinstance(value, float):
        return not math.isfinite(value)
    return not isinstance(value, bool) and not -_MAX_INT <= value < _MAX_INT


def _number(value, where: str):
    """A JSON number of an imported record: finite (``1e400`` reads as infinity and is refused), integers in 64 bits."""
    if not isinstance(value, (int, float)) or not _number_refused(value):
        return value
    if isinstance(value, float):
        raise _Refused(f"{where} holds a number beyond the range of a double (at most ±1.8e308); write it as text")
    raise _Refused(f"{where} holds an integer of {len(str(abs(value)))} digits (at most 19); write it as text")


def _strip_tags(text: str) -> str:
    """``text`` without pseudo-HTML tags other than :data:`_KEPT_TAG`'s: a tag runs from a ``<`` to the first ``>``.

    One pass from left to right (a regular expression for the same tags backtracked: quadratic on text such as
    ``<br <br <br …``); tags are not re-formed by the removal, since each removal ends at a ``>``.
    """
    out, pos = [], 0
    while (start := text.find("<", pos)) >= 0:
        end = text.find(">", start)
        if end < 0:
            break
        out.append(text[pos:start])
        if _KEPT_TAG.match(text, start + 1, end + 1):
            out.append(text[start : end + 1])
        pos = end + 1
    out.append(text[pos:])
    return "".join(out)


def _clean_figure_text(node, where: str):
    """Every string of a figure with plotly's markup reduced to line breaks and emphasis (no links, no styles); its
    numbers checked (:func:`_number`)."""
    if isinstance(node, str):
        return _strip_tags(node)
    if isinstance(node, dict):
        return {k: _clean_figure_text(v, where) for k, v in node.items()}
    if isinstance(node, list):
        return [_clean_figure_text(v, where) for v in node]
    return _number(node, where)


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
        figure = go.Figure({"data": _clean_figure_text(data, where), "layout": _clean_figure_text(layout, where)})
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
    wrong = next((i for i, v in enumerate(flat) if isinstance(v, (int, float)) and _number_refused(v)), None)
    if wrong is not None:
        r, c = divmod(wrong, width)
        _number(flat[wrong], f"{where} row {r + 1} column {str(columns[c])[:40]!r}")
    return name, pd.DataFrame(rows, columns=columns), len(flat)


def _setting(value, where: str, depth: int = 0):
    if isinstance(value, str):
        return _text(value, where)
    if isinstance(value, _SCALARS):
        return _number(value, where)
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
    _check_time(out["time"], f"{where} 'time'")
    if out["link"] and not safe_href(out["link"]):
        raise _Refused(f"{where} 'link' is not a web address of the studio (only http, https or /page links)")
    settings = _object(d.get("settings") if d.get("settings") is not None else {}, f"{where} 'settings'")
    out["settings"] = {str(k): _setting(v, f"{where} setting {str(k)[:40]!r}") for k, v in settings.items()}  # type: ignore[assignment]
    return out


def _check_time(stamp: str, where: str) -> None:
    """An imported time is empty or an ISO 8601 time whose UTC (and local) time is a date of years 1-9999."""
    if not stamp:
        return
    try:
        moment = _dt.datetime.fromisoformat(stamp)
        moment.astimezone(_dt.timezone.utc), moment.astimezone()
    except (ValueError, OverflowError, OSError):
        raise _Refused(
            f"{where} is not a time between the years 1 and 9999 (ISO 8601, e.g. 2025-01-06T10:00:00+00:00)"
        ) from None


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
        details=_text(d.get("details", ""), f"{where} 'details'", optional=True),
    )
    return item, cells


def read_record_json(text: str | bytes, *, max_bytes: int = MAX_RECORD_BYTES) -> list[RecordItem]:
    """Items of a record written by :func:`record_json`, checked field by field before anything is shown.

    Every field must have the shape :func:`record_json` writes: texts are text (shown as
    text, never as markdown or HTML), settings are JSON values, table rows have one cell per
    column, figures hold only plotly trace types that load nothing (their text keeps only line
    breaks and emphasis; layout images and maps are dropped), the link is an ``http``/``https``
    address or a ``/page`` path. Numbers are finite doubles and integers within 64 bits (JSON's
    ``1e400`` reads as infinity, which the studio never writes and would export as null: refused,
    naming the field; write such a value as text), and the time is empty or an ISO 8601 time of the
    years 1-9999 in UTC and in local time.

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


#: settings in words: the label of each key a page records (a key not here reads as its words)
_SETTING_WORDS = {
    "alpha": "α (share of rows allowed to decide unlike the full ensemble)",
    "target": "target marginal precision",
    "what_if_target": "what-if target marginal precision",
    "capacity": "capacity (reviews)",
    "neg_only": "negative exits only",
    "bootstrap_replicates": "bootstrap replicates",
    "interval_level": "interval level",
    "level": "interval level",
    "grid_size": "grid size (bins per classifier)",
    "beta": "β",
    "classifiers": "classifiers",
    "classifier": "classifier",
    "rule": "combination rule",
    "family": "analytic path family",
    "loss": "loss",
    "batch": "batch",
    "source": "data",
    "segment": "segment column",
    "demographic_parity": "demographic parity bound",
    "review_threshold": "review line (score)",
    "population": "population file",
    "population_rows": "population (documents)",
    "above": "documents at or above the line",
    "below": "documents below the line",
    "documents_below": "documents below the line",
    "allocation": "allocation of the reviews",
    "spacing": "strata spacing",
    "expected_half_width": "expected half-width of the interval (positives)",
    "prevalence_source": "anticipated prevalence from",
    "audit_file": "audit file",
    "audited": "documents audited",
    "positives_found": "positives found",
    "method": "curve below the line from",
    "review_cost": "cost per review",
    "value_per_positive": "value per caught positive",
    "cost_per_false_positive": "cost per false positive",
    "test_fraction": "share of rows held out for testing",
    "group_value": "protected group",
    "period": "period",
    "threshold": "deployed threshold",
    "seed": "random seed",
}
#: how each kind of setting's value reads (engine.presentation kinds); the rest by value_in_words
_SETTING_KINDS = {
    "alpha": "share",
    "target": "share",
    "what_if_target": "share",
    "interval_level": "share",
    "level": "share",
    "test_fraction": "share",
    "threshold": "threshold",
    "review_threshold": "threshold",
    "review_cost": "money",
    "value_per_positive": "money",
    "cost_per_false_positive": "money",
    "expected_half_width": "number",
}
#: an audit design's strata in words (their bounds are scores)
_STRATUM_LABELS = {"lower": "Scores from", "upper": "Scores below", "sample": "To review", "planned": "Planned"}
_STRATUM_KINDS = {"lower": "threshold", "upper": "threshold"}
#: settings that are the machine's business, not the decision's (the backend that counted, how long it took)
_UNSAID_SETTINGS = frozenset({"backend", "seconds", "warnings", "currency", "strata"})
_SHA256 = re.compile(r"[0-9a-f]{64}")
#: the studio's address as colleagues reach it (``https://opstudio.example.com``): every exported link starts with it
PUBLIC_URL_ENV = "OPSTUDIO_PUBLIC_URL"


def public_url() -> str:
    """The address colleagues use to reach the studio (``$OPSTUDIO_PUBLIC_URL``), without a trailing slash.

    Returns
    -------
    str
        An ``http``/``https`` address, or ``""`` when the variable is unset or not such an address
        (links then use the address the browser used).
    """
    base = os.environ.get(PUBLIC_URL_ENV, "").strip().rstrip("/")
    return base if safe_href(base) and base.startswith(("http://", "https://")) else ""


def _public_link(link: str) -> str:
    """A recorded link as colleagues open it: a ``/page?...`` path, or an address of the studio, on the public
    address when one is set."""
    base = public_url()
    if not base or not link:
        return link
    if link.startswith("/"):
        return base + link
    parts = urlsplit(link)
    return base + parts.path + (f"?{parts.query}" if parts.query else "")


def _link_words(link: str) -> str:
    """What a printed link says: the page it opens and where (its parameters are the machine's: not printed)."""
    parts = urlsplit(link)
    if parts.netloc:
        return f"{parts.scheme}://{parts.netloc}{parts.path} with this item's settings and data"
    return f"{parts.path} on the studio's address, with this item's settings and data"


def _setting_words(key: str, value, currency: str) -> tuple[str, str]:
    label = _SETTING_WORDS.get(key, column_label(key).lower())
    kind = _SETTING_KINDS.get(key)
    if key == "budget":  # an audit's number of reviews, or an early-exit policy's budget rule
        label = "reviews planned" if isinstance(value, (int, float)) else "budget rule"
    if key == "rule" and isinstance(value, str):
        return label, value.upper()
    if key == "alpha" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return label, f"{100 * value:.2f} %"  # as the page's α slider shows it
    if kind and isinstance(value, (int, float)) and not isinstance(value, bool):
        return label, format_value(value, kind, currency=currency)
    return label, value_in_words(value)


def _time_words(stamp: str) -> str:
    try:
        t = _dt.datetime.fromisoformat(stamp).astimezone(_dt.timezone.utc)
    except (TypeError, ValueError, OverflowError):
        return stamp or "not recorded"
    return t.strftime("%d %b %Y, %H:%M UTC").lstrip("0")


def _settings_line(settings: dict) -> str:
    currency = str(settings.get("currency") or "")
    words = [
        _setting_words(str(k), v, currency)
        for k, v in settings.items()
        if str(k) not in _UNSAID_SETTINGS and not str(k).endswith("sha256") and not _is_rows(v)
    ]
    return " · ".join(f"{label} {text}" for label, text in words) or "none"


def _is_rows(value) -> bool:
    """A setting that is a table (a list of records: an audit's strata)."""
    return isinstance(value, list) and bool(value) and all(isinstance(v, dict) for v in value)


def _provenance_sections(item: RecordItem) -> list[ReportSection]:
    """Where the decision came from, in words: the data, the settings in one line, the engine and the time, the
    link; an audit's design as a small table of its strata."""
    p = item.provenance if isinstance(item.provenance, dict) else {}
    settings: dict = p["settings"] if isinstance(p.get("settings"), dict) else {}
    sha = str(p.get("data_sha256") or "")
    fingerprints = [
        (column_label(str(k).removesuffix("_sha256") or "data").lower(), str(v))
        for k, v in settings.items()
        if str(k).endswith("sha256") and _SHA256.fullmatch(str(v))
    ]
    rows = [
        ("Data (SHA-256)", sha if _SHA256.fullmatch(sha) else "not recorded", ""),
        *((f"{name.capitalize()} (SHA-256)", value, "") for name, value in fingerprints if value != sha),
        ("Settings", _settings_line(settings), ""),
        (
            "Recorded",
            f"{_time_words(str(p.get('time') or ''))}, engine {p.get('engine_version') or 'not recorded'}",
            "",
        ),
    ]
    link = _public_link(str(p.get("link") or ""))
    if safe_href(link):
        rows.append(("Reopen this view", _link_words(link), link))
    sections = [ReportSection("Provenance", Facts(tuple(rows)), level=3)]
    shown = {name.strip().lower() for name, _ in item.tables}
    for key, value in settings.items():
        if _is_rows(value) and str(key).lower() not in shown:  # an audit's design, unless the item shows it
            table = present_table(pd.DataFrame(value), labels=_STRATUM_LABELS, kinds=_STRATUM_KINDS, precise=True)
            sections.append(ReportSection(f"{column_label(key)} of the design", table, level=3))
    return sections


#: a table of more rows than this is shown in the body by its first rows (:data:`BODY_FIRST`)
BODY_FIRST = 10


def _presented(frame: pd.DataFrame, currency: str = "", precise: bool = False) -> pd.DataFrame:
    """A record's table through the presentation layer: words, units, percentages; a wide table of few rows one
    quantity per row (its rows named by its text column, when it has one)."""
    first = str(frame.columns[0]).strip().lower() if frame.shape[1] else ""
    unique = frame.shape[1] and list(map(str, frame.columns)).count(str(frame.columns[0])) == 1
    row_kinds = frame.columns[0] if first in ("quantity", "measure") and unique else None
    style = {"currency": currency, "precise": precise, "compact": frame.shape[1] > 6}
    named = rows_named_by(frame) if row_kinds is None else None
    if named is not None and named != str(frame.columns[0]):  # the column naming the rows goes first
        frame = frame[[named, *(c for c in frame.columns if str(c) != named)]]
    if frame.shape[1] > WIDE_COLUMNS and len(frame) <= 4 and named is not None:
        return present_table(frame, transpose_on=named, **style)
    return present_table(frame, row_kinds=row_kinds, **style)


def _abbreviations(frame: pd.DataFrame) -> str:
    shown = {str(c) for c in frame.columns} | {str(v) for v in frame.iloc[:, 0]} if frame.shape[1] else set()
    short = [label for label in ("TP", "FP", "m just above", "Target m") if any(s.startswith(label) for s in shown)]
    if not short:
        return ""
    if any(label.startswith(("m ", "Target m")) for label in short):
        return "TP, FP: true and false positives; m: marginal precision."
    return "TP, FP: true and false positives."


def _file_name(number: int, table: int) -> str:
    """The CSV file of an item's table: numbered, never made of the table's name (an imported record's text)."""
    return f"item{number}-table{table}.csv"


@dataclass(frozen=True)
class _Attachment:
    """A table of the record as a CSV file: its label, heading, file name and bytes."""

    label: str
    heading: str
    name: str
    file_name: str
    table: pd.DataFrame


def _table_sections(item: RecordItem, number: int, attachments: list, static: bool) -> list[ReportSection]:
    currency = str((item.provenance.get("settings") or {}).get("currency") or "")
    sections = []
    for k, (name, table) in enumerate(item.tables, start=1):
        label = f"T{len(attachments) + 1}"
        attachment = _Attachment(label, f"{number}. {item.title}: {name}", name, _file_name(number, k), table)
        attachments.append(attachment)
        rows = len(table)
        shown = _presented(table.head(BODY_FIRST) if rows > BODY_ROWS else table, currency)
        where = "attached to this PDF" if static else "attached below"
        if rows > APPENDIX_ROWS:
            note = f"First {BODY_FIRST} of {rows:,} rows; every row in the file {attachment.file_name} ({where})."
        elif rows > BODY_ROWS:
            note = f"First {BODY_FIRST} of {rows:,} rows; all of them in Appendix {label}."
        else:
            note = ""
        note = " ".join(filter(None, [_abbreviations(shown), note]))
        sections.append(ReportSection(name, shown, note, level=3, anchor=label))
    return sections


def _sections(item: RecordItem, number: int, attachments: list, static: bool) -> list[ReportSection]:
    sections = [ReportSection(f"{number}. {item.title}", item.sentence, level=2, style="decision")]
    if item.details:
        sections.append(ReportSection("", item.details, style="details"))
    if item.note:
        sections.append(ReportSection("", f"Note: {item.note}", style="details"))
    sections += [ReportSection(name, figure, level=3) for name, figure in item.figures]
    sections += _table_sections(item, number, attachments, static)
    return sections + _provenance_sections(item)


def _csv_link(attachment: _Attachment) -> str:
    data = base64.b64encode(csv_bytes(attachment.table)).decode()
    return (
        f"<a download='{html.escape(attachment.file_name, quote=True)}' "
        f"href='data:text/csv;base64,{data}'>{html.escape(attachment.file_name)}</a>"
    )


def _appendix_sections(attachments: list[_Attachment], static: bool) -> list[ReportSection]:
    """The long tables complete (up to :data:`APPENDIX_ROWS` rows), then the list of the attached CSV files."""
    if not attachments:
        return []
    long = [a for a in attachments if BODY_ROWS < len(a.table) <= APPENDIX_ROWS]
    where = (
        "attached to this PDF (your PDF viewer lists them under attachments)"
        if static
        else "attached to this page (the links below)"
    )
    out = [
        ReportSection(
            "Appendix",
            f"Every table of the record is {where} as a CSV file with every digit, and complete in the JSON "
            "record. Tables longer than the body shows are printed here in full"
            + ("." if long else " (none in this record)."),
            anchor="appendix",
            new_page=True,
        )
    ]
    for a in long:
        shown = _presented(a.table, precise=True)
        out.append(ReportSection(f"{a.label}. {a.heading}", shown, _abbreviations(shown), level=3, anchor=a.label))
    files = pd.DataFrame(
        {
            "Item": [a.heading.split(".", 1)[0] for a in attachments],
            "Table": [a.name for a in attachments],
            "Rows": [f"{len(a.table):,}" for a in attachments],
            "Columns": [f"{a.table.shape[1]:,}" for a in attachments],
            "File": [a.file_name for a in attachments],
        }
    )
    links = "" if static else "<p class='note'>" + " · ".join(_csv_link(a) for a in attachments) + "</p>"
    out.append(ReportSection("Attached files", files, level=3, attachment=links))
    return out


def record_html(items, title: str = "Decision record", *, static: bool = False) -> str:
    """One self-contained HTML page: every item's sentence, details, note, figures, tables and provenance.

    Every table goes through the presentation layer (:func:`engine.presentation.present_table`:
    words and units, percentages, separators, "not bounded" and dashes, estimates said to be
    estimates); a table too wide for the page is split into groups of columns, a wide one of few
    rows is shown one quantity per row. Tables longer than :data:`BODY_ROWS` rows show their
    first rows in the body and are printed in full in the appendix (up to
    :data:`APPENDIX_ROWS` rows); every table is attached as a CSV file with every digit (links
    in the HTML, file attachments in the PDF). Provenance is in words; the link that reopens a
    view is on the public address (:func:`public_url`) when one is set.

    Parameters
    ----------
    items : sequence of RecordItem
        The record's items, numbered from 1 in this order.
    title : str, optional
        Page title and top heading.
    static : bool, optional
        Laid out for paper (the PDF): static figures at the paper's width, no embedded links to
        the CSV files (the PDF carries them as attachments).

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
    attachments: list = []
    sections = [s for n, item in enumerate(items, start=1) for s in _sections(item, n, attachments, static)]
    sections += _appendix_sections(attachments, static)
    meta = {
        "Decisions": f"{len(items):,}",
        "written": _time_words(_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")),
        "engine": ENGINE_VERSION,
    }
    return render_html(title, meta, sections, static=static)


def record_attachments(items) -> list[tuple[str, bytes]]:
    """Every table of a record as a CSV file: the files :func:`record_pdf` attaches and the HTML links.

    Parameters
    ----------
    items : sequence of RecordItem
        The record's items, in order.

    Returns
    -------
    list of (str, bytes)
        File name (``item<N>_<table>.csv``) and CSV bytes (:func:`engine.reporting.csv_bytes`: every
        digit, formula-like cells neutralised), in the record's order.
    """
    attachments: list[_Attachment] = []
    for number, item in enumerate(items, start=1):
        _table_sections(item, number, attachments, True)
    return [(a.file_name, csv_bytes(a.table)) for a in attachments]


def record_pdf(record, title: str = "Decision record", *, chromium: str | None = None, timeout: float = 120) -> bytes:
    """The record printed to PDF by headless Chromium, every table attached to it as a CSV file.

    Parameters
    ----------
    record : sequence of RecordItem or str
        The items (laid out by :func:`record_html` for paper, their tables attached to the PDF as
        files), or an HTML page already written (printed as it is, nothing attached).
    title : str, optional
        Title of the record (items only).
    chromium : str, optional
        Path of the Chromium executable; default :func:`chromium_path`. ``chromium`` on ``PATH`` is
        used when it does not exist.
    timeout : float, optional
        Seconds Chromium may take to print.

    Returns
    -------
    bytes
        The PDF file.

    Raises
    ------
    InputError
        Chromium is not installed (``apt-get install chromium``) or failed, or the record is empty.
    """
    if isinstance(record, str):
        return _print(record, chromium or chromium_path(), timeout)
    pdf = _print(record_html(record, title, static=True), chromium or chromium_path(), timeout)
    return _attached(pdf, record_attachments(record), title)


def _attached(pdf: bytes, files: list[tuple[str, bytes]], title: str) -> bytes:
    """The PDF with ``files`` embedded as file attachments (pypdf), and its title."""
    if not files:
        return pdf
    from pypdf import PdfReader, PdfWriter  # imported here: the dashboard's pages never need it otherwise

    writer = PdfWriter()
    writer.append(PdfReader(io.BytesIO(pdf)))  # pages, links and fonts as printed; 8x faster than clone_from
    writer.add_metadata({"/Title": title, "/Creator": f"Operating Point Studio {ENGINE_VERSION}"})
    for name, data in files:
        writer.add_attachment(name, data)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def _print(html_text: str, chromium: str, timeout: float) -> bytes:
    if not Path(chromium).exists() and shutil.which("chromium") is None:
        raise InputError(
            "PDF export needs Chromium (apt-get install chromium, or set OPSTUDIO_CHROMIUM to its path); export the "
            "HTML and print it from a browser instead."
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
