"""The decision record: the choices of a meeting, from every page, in one document.

Each item is one decision with its consequence in a plain sentence, the figures and
tables behind it, the user's annotation and its provenance (data fingerprint,
settings, engine version, time, a link that reopens the view). The record is
written as JSON (read back by :func:`read_record_json`), as one self-contained HTML
page (interactive figures, plotly.js inlined once; every user string escaped) and
as PDF (the HTML printed by headless Chromium).
"""

from __future__ import annotations

import datetime as _dt
import json
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path

import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio

from .errors import InputError
from .reporting import ENGINE_VERSION, ReportSection, json_safe, render_html

__all__ = ["RecordItem", "new_item", "record_json", "read_record_json", "record_html", "record_pdf",
           "RECORD_FORMAT", "CHROMIUM"]

RECORD_FORMAT = "opstudio-decision-record/1"
#: the browser that prints the PDF (Debian's package)
CHROMIUM = "/usr/bin/chromium"


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

    def annotated(self, note: str) -> "RecordItem":
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
        return json_safe({
            "kind": self.kind, "title": self.title, "sentence": self.sentence, "note": self.note,
            "provenance": self.provenance,
            "tables": [{"name": n, "columns": [str(c) for c in t.columns], "rows": t.astype(object).where(
                t.notna(), None).values.tolist()} for n, t in self.tables],
            "figures": [{"name": n, "plotly": json.loads(pio.to_json(f))} for n, f in self.figures],
        })


def new_item(kind: str, title: str, sentence: str, *, tables=(), figures=(), data_fingerprint: str = "",
             settings: dict | None = None, link: str = "") -> RecordItem:
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
    provenance = {"data_sha256": data_fingerprint, "settings": json_safe(settings or {}),
                  "engine_version": ENGINE_VERSION,
                  "time": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"), "link": link}
    return RecordItem(kind, title, sentence, tuple(tables), tuple(figures), provenance)


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
    return json.dumps({"format": RECORD_FORMAT, "engine_version": ENGINE_VERSION,
                       "items": [i.as_dict() for i in items]}, indent=1)


def _item_from_dict(d: dict) -> RecordItem:
    tables = tuple((t["name"], pd.DataFrame(t["rows"], columns=t["columns"])) for t in d.get("tables", []))
    figures = tuple((f["name"], go.Figure(f["plotly"])) for f in d.get("figures", []))
    return RecordItem(str(d["kind"]), str(d["title"]), str(d["sentence"]), tables, figures,
                      dict(d.get("provenance", {})), str(d.get("note", "")))


def read_record_json(text: str | bytes) -> list[RecordItem]:
    """Items of a record written by :func:`record_json`.

    Parameters
    ----------
    text : str or bytes
        The JSON text of the record.

    Returns
    -------
    list of RecordItem
        The items in their recorded order, tables and figures rebuilt.

    Raises
    ------
    InputError
        Not a decision record.
    """
    try:
        record = json.loads(text)
        if record.get("format") != RECORD_FORMAT:
            raise KeyError("format")
        return [_item_from_dict(d) for d in record["items"]]
    except (ValueError, KeyError, TypeError, AttributeError):
        raise InputError(f"This is not a decision record written by the studio (format {RECORD_FORMAT}).") from None


def _sections(item: RecordItem, number: int) -> list[ReportSection]:
    p = item.provenance
    sections = [ReportSection(f"{number}. {item.title}", item.sentence, item.note and f"Note: {item.note}")]
    sections += [ReportSection(name, figure) for name, figure in item.figures]
    sections += [ReportSection(name, table) for name, table in item.tables]
    details = {"kind": item.kind, "data (SHA-256)": p.get("data_sha256", ""), "engine version": p.get("engine_version"),
               "time (UTC)": p.get("time"), "reopen this view": p.get("link", ""),
               **{f"setting: {k}": v for k, v in (p.get("settings") or {}).items()}}
    sections.append(ReportSection("Provenance", pd.DataFrame({"": list(details), "value": list(map(str,
                                                                                                   details.values()))})))
    return sections


def record_html(items, title: str = "Decision record") -> str:
    """One self-contained HTML page: every item's sentence, note, figures, tables and provenance.

    Parameters
    ----------
    items : sequence of RecordItem
        The record's items, numbered from 1 in this order.
    title : str, optional
        Page title and top heading.

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
    sections = [s for n, item in enumerate(items, start=1) for s in _sections(item, n)]
    meta = {"items": len(items), "engine version": ENGINE_VERSION,
            "written (UTC)": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")}
    return render_html(title, meta, sections)


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
        raise InputError("PDF export needs Chromium (apt-get install chromium); export the HTML and print it "
                         "from a browser instead.")
    with tempfile.TemporaryDirectory() as tmp:  # the export's own files, removed at once
        page, pdf = Path(tmp) / "record.html", Path(tmp) / "record.pdf"
        page.write_text(html_text, encoding="utf-8")
        cmd = [chromium if Path(chromium).exists() else "chromium", "--headless", "--no-sandbox", "--disable-gpu",
               "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
               "--run-all-compositor-stages-before-draw", "--virtual-time-budget=10000",
               f"--print-to-pdf={pdf}", "--no-pdf-header-footer", page.as_uri()]
        try:
            subprocess.run(cmd, capture_output=True, timeout=timeout, check=False)
        except subprocess.TimeoutExpired:
            raise InputError("Chromium took too long to print the record; export the HTML instead.") from None
        if not pdf.exists() or pdf.stat().st_size == 0:
            raise InputError("Chromium could not print the record; export the HTML instead.")
        return pdf.read_bytes()
