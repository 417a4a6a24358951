"""Where the user is and how to send them elsewhere: the current page, its link, links to other pages.

Every page's path, title and icon come from :data:`engine.pages.PAGES`; nothing here
repeats them.

A page's link names every input the page reads, one ``data`` parameter each:
``data=<kind>:<SHA-256>:<file name>`` (the full 64 hex digits; at least 16 are accepted, and a
bare prefix without kind or name from an older link too). A shipped sample chosen on a page
shows in its address bar as ``sample=<key>``. Both parameters belong to the page they were
opened with: leaving a page that read them drops them from the URL (:func:`remember_page`), so
that the next page never takes them for its own (:mod:`views.inputs` reads them on a page's
first visit only).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from urllib.parse import urlencode, urlsplit

import streamlit as st

from engine.io import INPUT_KINDS, SAMPLES
from engine.pages import PAGES, page_for
from engine.record import public_url

_PAGE = "_current_page"
_ROUTED = "_run_through_navigation"  # set while app.py runs the navigation's page
_READ_LINK = "_link_read_on"  # the page whose inputs read the URL's data/sample parameters this run
_SHOWN = "_page_inputs"  # kind -> the SessionInput each picker of this run's page shows

#: the query parameter naming the data a page reads (``<kind>:<SHA-256>:<file name>``, repeated per input)
DATA_PARAM = "data"
#: the query parameter naming a shipped sample a page reads (repeated per input)
SAMPLE_PARAM = "sample"
#: hex digits of a SHA-256 a link must give at least (a prefix names the data; fewer could name another file)
MIN_DIGITS = 16
#: ``data``/``sample`` values read from one URL; more are ignored (a crafted URL may repeat a key 10^5 times)
MAX_LINKED = 16
#: characters of a file name kept from a link
MAX_NAME = 200

_SHA = re.compile(rf"[0-9a-fA-F]{{{MIN_DIGITS},64}}")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


@dataclass(frozen=True)
class LinkedInput:
    """An input a link names: its kind (None in an older link), its SHA-256 (or a prefix) and file name."""

    kind: str | None
    sha256: str
    name: str = ""

    def matches(self, fingerprint: str) -> bool:
        return bool(fingerprint) and fingerprint.lower().startswith(self.sha256)

    @property
    def label(self) -> str:
        """How a message names it: ``rated.csv (SHA-256 c2d7f484…)``."""
        digest = f"SHA-256 {self.sha256[:8]}…"
        return f"{self.name} ({digest})" if self.name else digest


def remember_page(url_path: str) -> None:
    """Note which page this run shows (``app.py`` calls it with the navigation's choice, before the page runs).

    Leaving a page whose inputs read the URL's ``data``/``sample`` parameters drops them: the browser keeps a
    page's query string when the user opens another page, and the next page must not take them for its own.
    """
    previous = st.session_state.get(_PAGE)
    if previous is not None and previous != url_path and st.session_state.get(_READ_LINK) == previous:
        for param in (DATA_PARAM, SAMPLE_PARAM):
            if param in st.query_params:
                del st.query_params[param]
        st.session_state.pop(_READ_LINK, None)
    st.session_state[_PAGE] = url_path
    st.session_state[_SHOWN] = {}


def _whole_numbers_refuse_infinity() -> None:
    """A whole-number input bound to the URL takes its default from an infinite value (``?seed=1e400``), as from
    any other value it cannot read.

    Streamlit seeds such an input with ``int(float(value))`` and falls back to the default on the ``ValueError``
    of ``nan`` or text, but not on the ``OverflowError`` of an infinity: a crafted link showed an exception box
    on every page with one (the Operating point's seed and replicates, Below the line's budget, strata and seed
    ...). Its reader (``NumberInputSerde.deserialize``) is wrapped once per process; the values the UI sends are
    finite and unaffected.
    """
    try:
        from streamlit.elements.widgets.number_input import NumberInputSerde
    except ImportError:  # pragma: no cover - another Streamlit: tests/fuzz/test_query_params_fuzz.py says so
        return
    original = NumberInputSerde.deserialize
    if getattr(original, "refuses_infinity", False):
        return

    def deserialize(self, ui_value):
        try:
            return original(self, ui_value)
        except OverflowError:
            return self.value

    deserialize.refuses_infinity = True  # type: ignore[attr-defined]
    deserialize.original = original  # type: ignore[attr-defined]
    NumberInputSerde.deserialize = deserialize


_whole_numbers_refuse_infinity()


def run_page(page) -> None:
    """Run the navigation's page (``app.py``), marked as run through the navigation (:func:`routed`)."""
    st.session_state[_ROUTED] = True
    try:
        page.run()
    finally:
        st.session_state.pop(_ROUTED, None)


def routed() -> None:
    """Every page's first call: a page Streamlit ran without ``app.py`` reruns through it.

    Streamlit keeps its legacy mode for apps with a ``pages/`` folder (each script a page named by its
    file, run on its own) until the process first calls ``st.navigation``. A fresh server whose first
    request was ``/monitoring`` — and every AppTest run after ``switch_page`` to a page whose file name
    is its URL path — ran the page without ``app.py``: Streamlit's file-name navigation instead of
    :data:`engine.pages.PAGES`, no sidebar, no housekeeping, and no current page for the page's own
    inputs and links. The flag is switched off (as ``st.navigation`` does) and the run starts again.
    """
    if st.session_state.get(_ROUTED):
        return
    from streamlit.runtime.pages_manager import PagesManager  # the flag st.navigation itself clears

    PagesManager.uses_pages_directory = False
    st.rerun()


def current_page() -> str:
    """The URL path of the page this run shows (``""`` before the navigation chose one)."""
    return str(st.session_state.get(_PAGE, ""))


def _values(param: str) -> list[str]:
    try:
        return [str(v) for v in st.query_params.get_all(param)[:MAX_LINKED]]
    except Exception:  # pragma: no cover - a query parameter API without get_all
        value = st.query_params.get(param)
        return [] if value is None else [str(value)]


def parse_data_value(value: str) -> LinkedInput | None:
    """A ``data`` value as a :class:`LinkedInput`, or None when it is not one (it is then ignored and said so).

    ``<kind>:<SHA-256>:<file name>`` or, from an older link, a bare SHA-256 prefix; at least
    :data:`MIN_DIGITS` hex digits.
    """
    value = value.strip()
    if _SHA.fullmatch(value):
        return LinkedInput(None, value.lower())
    parts = value.split(":", 2)
    if len(parts) < 2 or parts[0] not in INPUT_KINDS or not _SHA.fullmatch(parts[1]):
        return None
    name = _CONTROL.sub("", parts[2] if len(parts) == 3 else "")[:MAX_NAME]
    return LinkedInput(parts[0], parts[1].lower(), name)


def linked_inputs(kind: str) -> tuple[list[LinkedInput], list[str], list[str]]:
    """What this run's URL names for an input of ``kind``: (linked data, shipped sample keys, values not understood).

    Reading them marks the page as the one the link's parameters belong to (:func:`remember_page`).
    """
    st.session_state[_READ_LINK] = current_page()
    linked, unknown = [], []
    for value in _values(DATA_PARAM):
        parsed = parse_data_value(value)
        if parsed is None:
            unknown.append(value)
        elif parsed.kind in (None, kind):
            linked.append(parsed)
    samples = []
    for value in _values(SAMPLE_PARAM):
        sample = SAMPLES.get(value)
        if sample is None or sample.kind is None:
            unknown.append(value)
        elif sample.kind == kind:
            samples.append(value)
    return linked, samples, unknown


def _data_value(kind: str, sha256: str, name: str) -> str:
    """The ``data`` value naming an input: ``<kind>:<SHA-256>:<file name>``."""
    return f"{kind}:{sha256}:{_CONTROL.sub('', name)[:MAX_NAME]}"


def show_input(inp) -> None:
    """Note the input a picker of this page shows: the page's links name it, its address bar too.

    A shipped sample shows as ``sample=<key>``, anything else as ``data=<kind>:<SHA-256>:<name>``.
    """
    st.session_state.setdefault(_SHOWN, {})[inp.kind] = inp
    st.session_state[_READ_LINK] = current_page()
    samples = [v for v in _values(SAMPLE_PARAM) if v in SAMPLES and SAMPLES[v].kind != inp.kind]
    data = []
    for value in _values(DATA_PARAM):
        parsed = parse_data_value(value)
        if parsed is not None and parsed.kind not in (None, inp.kind):
            data.append(value)
    if inp.source == "sample" and inp.sample_key:
        samples.append(inp.sample_key)
    else:
        data.append(_data_value(inp.kind, inp.fingerprint, inp.name))
    for param, values in ((SAMPLE_PARAM, samples), (DATA_PARAM, data)):
        if _values(param) != values:
            if values:
                st.query_params[param] = values
            elif param in st.query_params:
                del st.query_params[param]


def shown_inputs() -> dict:
    """kind -> the input each picker of this run's page shows (in the order they were drawn)."""
    return dict(st.session_state.get(_SHOWN, {}))


def current_view(settings: dict | None = None) -> dict:
    """The view this run shows, as a link (or a saved view) holds it: the page, its settings, its inputs' SHA-256.

    Settings are the URL's own (the widgets of this page bound to query parameters; a key no widget
    of the session has is left out) joined by ``settings`` (widget key -> value: the ones the URL
    leaves out because they are at their default, or not bound). Inputs are those the page's
    pickers show, samples included, so that the view names exactly the bytes it was made on.

    Returns
    -------
    dict
        ``{"page": url_path, "settings": {key: text}, "inputs": [{"kind", "sha256", "name"}, ...]}``.
    """
    shown = {
        k: v
        for k, v in st.query_params.to_dict().items()
        if k not in (DATA_PARAM, SAMPLE_PARAM) and k in st.session_state
    }
    shown.update({k: _param(v) for k, v in (settings or {}).items() if v is not None})
    inputs = [{"kind": i.kind, "sha256": i.fingerprint, "name": i.name} for i in shown_inputs().values()]
    return {"page": current_page(), "settings": shown, "inputs": inputs}


def current_link(settings: dict | None = None) -> str:
    """An absolute link that reopens the page this run shows with its settings and exactly its inputs
    (:func:`current_view`): one ``data=<kind>:<SHA-256>:<file name>`` per input. Opened where that data
    is not loaded, the page names the file and offers the Data page (:func:`views.inputs.input_picker`)
    instead of computing on other data."""
    view = current_view(settings)
    params = list(view["settings"].items())
    params += [(DATA_PARAM, _data_value(i["kind"], i["sha256"], i["name"])) for i in view["inputs"]]
    query = urlencode(params)
    return link_base() + f"/{view['page']}" + (f"?{query}" if query else "")


def link_base() -> str:
    """The scheme, host and base path links start with (``""`` without a browser: links are then paths).

    The one place that decides where the studio is served: ``OPSTUDIO_PUBLIC_URL`` when it is set (the
    address colleagues use, :func:`engine.record.public_url`), else the browser's address without the page it
    opened first.
    """
    if public_url():
        return public_url()
    try:
        here = urlsplit(st.context.url or "")
    except Exception:  # no browser context (AppTest, a bare script run): the path alone
        return ""
    if here.scheme not in ("http", "https") or not here.netloc:
        return ""
    base = here.path.rstrip("/")  # the app may be served under a base path (server.baseUrlPath) ...
    for page in PAGES:  # ... followed by the page the browser opened first
        if page.url_path and base.endswith(f"/{page.url_path}"):
            base = base[: -len(page.url_path) - 1]
            break
    return f"{here.scheme}://{here.netloc}{base}"


def _param(value) -> str:
    """A setting as Streamlit writes a bound widget's value in the URL (5.0 -> "5", True -> "true")."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float) and math.isfinite(value) and value == int(value):
        return str(int(value))
    return str(value)


def go_to(url_path: str) -> None:
    """A link to another page, labelled and iconed as the navigation shows it."""
    page = page_for(url_path)
    st.page_link(page.script, label=f"Go to {page.title}", icon=page.icon)
