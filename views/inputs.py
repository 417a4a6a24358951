"""Inputs of this session and each page's own choice among them.

An input (:class:`views.session_input.SessionInput`) is a validated engine object
(rated data, aggregated counts, a score matrix ...) with its name, kind, source and
the SHA-256 of its bytes. Inputs live in ``st.session_state`` only: nothing is
written to disk. Each kind's column-mapping form, sample loader and validation
report are in ``views/forms``, which this module loads samples with.

**Each page keeps its own selection** — one input per kind it reads, keyed by the page's
URL path and the kind (a view is the page, its settings and the SHA-256 of these inputs).
A page's first visit chooses, in this order: the input its URL names (a reopened link,
:mod:`views.navigation`), else the newest input of the kind added on the Data page, else
the page's preferred shipped sample. From then on only the page's own picker, or an explicit
"Use on <page>" on the Data page, changes it: visiting a page never changes another page's
selection, and adding an input on the Data page changes none (the Data page says which pages
will use it). A link whose data is not loaded names the file and offers the Data page; the
page shows nothing computed on other data.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections import OrderedDict

import streamlit as st

from engine.io import INPUT_KINDS, SAMPLES, samples_of_kind
from engine.pages import PAGES, Page, pages_using
from views.forms import FORMS
from views.navigation import (
    DATA_PARAM,
    SAMPLE_PARAM,
    LinkedInput,
    current_page,
    go_to,
    linked_inputs,
    show_input,
)
from views.session_input import SOURCE_TITLES, SessionInput
from views.state import md, server_memo

_STORE = "_inputs"  # name -> SessionInput, in the order they were added
_FROM_DATA = "_inputs_from_data"  # name -> order in which the Data page added it
_SELECTED = "_selected_inputs"  # (page URL path, kind) -> (SHA-256, name) of the input that page uses
_PENDING = "_pending_links"  # (page URL path, kind) -> LinkedInput a reopened link needs and the session lacks
_NOTICES = "_input_notices"  # page URL path -> sentences said once, by the page's next picker
_COUNTER = itertools.count(1)


def _store() -> OrderedDict:
    return st.session_state.setdefault(_STORE, OrderedDict())


def _selected() -> dict:
    return st.session_state.setdefault(_SELECTED, {})


def _pending() -> dict:
    return st.session_state.setdefault(_PENDING, {})


def session_inputs(kind: str | None = None) -> list[SessionInput]:
    """Inputs of this session (of one kind, or all), oldest first."""
    return [i for i in _store().values() if kind is None or i.kind == kind]


def add_input(inp: SessionInput, *, on_data_page: bool = False, replaces: str | None = None) -> SessionInput:
    """Add an input to the session; no page's selection changes.

    The same bytes read as the same kind replace the earlier input under its name (a remapped
    upload updates, it does not pile up); ``replaces`` names an input this one replaces under
    its name (the same upload read as another kind); another input with the same name gets a
    numbered name. ``on_data_page``: added by the user on the Data page, so pages not visited
    yet open on it.
    """
    store, added = _store(), st.session_state.setdefault(_FROM_DATA, {})
    same = next((i for i in store.values() if i.kind == inp.kind and i.fingerprint == inp.fingerprint), None)
    name = same.name if same is not None else None
    if replaces in store and replaces != name:  # the upload read as another kind: one input, not two
        del store[replaces]
        added.pop(replaces, None)
        name = name or replaces
    if name is None:
        name, n = inp.name, 2
        while name in store:
            name, n = f"{inp.name} ({n})", n + 1
    inp = dataclasses.replace(inp, name=name)
    store[inp.name] = inp
    if on_data_page:
        added[inp.name] = next(_COUNTER)
    return inp


def remove_input(name: str) -> None:
    """Forget an input; a page that used it falls back (and says so) on its next visit."""
    _store().pop(name, None)
    st.session_state.setdefault(_FROM_DATA, {}).pop(name, None)


def shared_sample(key: str) -> SessionInput:
    """A shipped sample read and validated once per server: public, read-only data every session shares (held in
    the server's byte-budgeted cache, :func:`views.state.server_memo`)."""
    return server_memo(("sample", key), lambda: FORMS[SAMPLES[key].kind].load_sample(key))


def load_sample(key: str, *, on_data_page: bool = False) -> SessionInput:
    """A shipped sample as a session input (the server's one copy, :func:`shared_sample`, under this session's name)."""
    existing = next((i for i in session_inputs() if i.sample_key == key), None)
    if existing is not None:
        if on_data_page:
            st.session_state.setdefault(_FROM_DATA, {})[existing.name] = next(_COUNTER)
        return existing
    return add_input(shared_sample(key), on_data_page=on_data_page)


def newest_from_data_page(kind: str) -> SessionInput | None:
    """The input of ``kind`` the Data page added last (None when it added none)."""
    added = st.session_state.get(_FROM_DATA, {})
    candidates = [i for i in session_inputs(kind) if i.name in added]
    return max(candidates, key=lambda i: added[i.name]) if candidates else None


def _default(kind: str, prefer: str | None) -> SessionInput | None:
    """What a page uses without a link: the Data page's newest input of the kind, else the preferred sample."""
    newest = newest_from_data_page(kind)
    if newest is not None:
        return newest
    samples = list(samples_of_kind(kind))
    key = prefer if prefer in samples else (samples[0] if samples else None)
    return load_sample(key) if key else None


def use_on_page(page: str, inp: SessionInput) -> None:
    """Make ``inp`` the input of its kind on ``page`` (its picker, or "Use on <page>" on the Data page)."""
    _selected()[(page, inp.kind)] = (inp.fingerprint, inp.name)
    _pending().pop((page, inp.kind), None)


def page_selection(kind: str, page: str | None = None) -> SessionInput | None:
    """The input of ``kind`` a page uses (this run's page by default), or None before its first choice."""
    chosen = _selected().get((page or current_page(), kind))
    # by its bytes: a file removed and another uploaded under its name is not the page's input
    return next((i for i in session_inputs(kind) if chosen and i.fingerprint == chosen[0]), None)


def _find(link: LinkedInput, kind: str) -> SessionInput | None:
    """The session's input, or shipped sample, of ``kind`` whose SHA-256 the link names."""
    match = next((i for i in reversed(session_inputs(kind)) if link.matches(i.fingerprint)), None)
    if match is None:
        for key in samples_of_kind(kind):
            if link.matches(shared_sample(key).fingerprint):
                return load_sample(key)
    return match


def _read_link(page: str) -> None:
    """The inputs this run's URL names for a page not opened yet, every kind of it at once: each one loaded (or
    shipped) becomes the page's, each one missing a pending link. Read at once, so that a link whose first input
    is missing still names the others when that one is added (the URL's parameters are dropped on leaving)."""
    kinds = next((p.input_kinds for p in PAGES if p.url_path == page), ())
    ignored: list[str] = []
    for kind in kinds:
        if (page, kind) in _selected() or (page, kind) in _pending():
            continue
        linked, samples, unknown = linked_inputs(kind)
        ignored = unknown
        link = next((k for k in linked if not _other_kind(k, kind)), None)
        if link is not None:
            _pending()[(page, kind)] = link
        elif samples:
            use_on_page(page, load_sample(samples[0]))
    if ignored:
        shown = ", ".join(repr(v[:40] + ("…" if len(v) > 40 else "")) for v in ignored[:3])
        _notify(page, f"The link's {DATA_PARAM}/{SAMPLE_PARAM} value {shown} names no input; it is ignored.")


def _other_kind(link: LinkedInput, kind: str) -> bool:
    """An older link's bare prefix that names another kind of input of this page (the feature table of a model)."""
    return (
        link.kind is None
        and _find(link, kind) is None
        and any(link.matches(i.fingerprint) for i in session_inputs() if i.kind != kind)
    )


def _notify(page: str, sentence: str) -> None:
    st.session_state.setdefault(_NOTICES, {}).setdefault(page, []).append(sentence)


def _missing(page: str, kind: str, key: str, link: LinkedInput) -> None:
    """Say which file the link needs, offer the Data page (or going on with the data loaded here), stop the page."""
    other = next((i for i in session_inputs() if link.matches(i.fingerprint)), None)
    where = (
        f"it is loaded as {other.kind_title.lower()} ('{other.name}'): change its kind on the Data page"
        if other is not None
        else "add that file on the Data page and this page opens on it"
    )
    what = INPUT_KINDS[kind].title.lower() if link.kind else "data"
    st.warning(
        f"This link was made on {what} that this session does not have: it needs "
        f"{md(link.label)}; {md(where)}. Nothing is computed on other data meanwhile. The SHA-256 begins with "
        f"{link.sha256[:16]}.",
        icon=":material/link_off:",
    )
    go_to("data")

    def drop_link() -> None:  # every input of the link: the page opens on its defaults
        for waiting in [k for k in _pending() if k[0] == page]:
            del _pending()[waiting]
        for param in (DATA_PARAM, SAMPLE_PARAM):
            if param in st.query_params:
                del st.query_params[param]

    st.button("Continue with the data loaded here", key=f"{key}_ignore_link", on_click=drop_link)
    st.stop()


def chosen_input(kind: str, *, key: str, prefer: str | None = None) -> SessionInput | None:
    """The input of ``kind`` this run's page uses, decided on its first visit and kept; see the module's docstring.

    A pending link whose data has been added since is applied; one still missing stops the page
    after saying what it needs. An input the page used that was removed falls back to the default,
    and the page says so once.
    """
    page = current_page()
    if (page, kind) not in _selected() and (page, kind) not in _pending():
        _read_link(page)
    link = _pending().get((page, kind))
    if link is not None:
        found = _find(link, kind)
        if found is None:
            _missing(page, kind, key, link)
        use_on_page(page, found)
    inp = page_selection(kind, page)
    if inp is None and (page, kind) in _selected():
        sha, gone = _selected().pop((page, kind))
        inp = _default(kind, prefer)
        if inp is not None:
            use_on_page(page, inp)
            _notify(
                page,
                f"'{gone}' (SHA-256 {sha[:8]}…), which this page used, is no longer loaded as "
                f"{INPUT_KINDS[kind].title.lower()}; it now uses '{inp.name}' (SHA-256 {inp.fingerprint[:8]}…).",
            )
    elif inp is None:
        inp = _default(kind, prefer)
        if inp is not None:
            use_on_page(page, inp)
    if inp is not None:
        show_input(inp)  # the page's links and its address bar name it
    return inp


def input_picker(kind: str, *, key: str, label: str | None = None, prefer: str | None = None) -> SessionInput | None:
    """Choose the input of ``kind`` this page works on, among the session's own inputs of that kind and every
    shipped sample of it. The choice is this page's alone (:func:`chosen_input`); the sidebar shows it and
    the page's links name it. ``prefer``: the shipped sample the page opens on when nothing else applies."""
    kind_info, page = INPUT_KINDS[kind], current_page()
    current = chosen_input(kind, key=key, prefer=prefer)
    for notice in st.session_state.get(_NOTICES, {}).pop(page, []):
        st.info(md(notice), icon=":material/info:")
    if current is None:
        st.info(f"No {kind_info.title.lower()} loaded yet. Add one on the Data page: {kind_info.what}")
        go_to("data")
        return None
    # the session's own inputs, then every shipped sample of the kind (the same options whichever pages loaded them)
    loaded = {i.name: i for i in session_inputs(kind) if i.source != "sample"}
    options = list(loaded) + [f"sample:{k}" for k in samples_of_kind(kind)]

    def show(option: str) -> str:
        if option in loaded:  # before the prefix: an upload may be named "sample:…"
            return f"{option} ({SOURCE_TITLES.get(loaded[option].source, loaded[option].source)})"
        return f"{SAMPLES[option[7:]].title} (shipped sample)"

    def picked() -> None:
        option = st.session_state[key]
        use_on_page(page, loaded[option] if option in loaded else load_sample(option[7:]))

    # this page's own choice, whatever the widget held on another visit
    st.session_state[key] = f"sample:{current.sample_key}" if current.source == "sample" else current.name
    st.selectbox(label or kind_info.title, options, format_func=show, key=key, on_change=picked)
    sidebar_card(current)
    return current


def sidebar_card(inp: SessionInput) -> None:
    """The input in the sidebar: its name and source, and what it holds (rated data: rows, classifiers, prevalence)."""
    with st.sidebar:
        where = {"sample": "sample", "upload": "upload", "server": "on the server, counted by DuckDB"}
        st.markdown(f"**{md(inp.name)}** ({md(inp.kind_title.lower())}, {where.get(inp.source, inp.source)})")
        if inp.kind != "rated":
            st.caption(md(FORMS[inp.kind].summary(inp)))
            return
        d = inp.rated
        # one metric per row: side by side, "1,000,000" did not fit half the sidebar ("1,00…")
        st.metric("Rated rows", f"{d.n_rated:,}")
        st.metric("Unrated rows", f"{d.n_unrated:,}")
        st.caption(f"Classifiers: {md(', '.join(d.score_names))}")
        st.caption(f"Prevalence among rated: {d.prevalence_among_rated:.2%}")


def sidebar_note(name: str, what: str) -> None:
    """Data a page reads that is not a session input (the shipped model it trains, a public data set): its name."""
    with st.sidebar:
        st.markdown(f"**{md(name)}** (built in)")
        st.caption(md(what))


def pages_reading(inp: SessionInput) -> list[tuple[Page, SessionInput | None, bool]]:
    """For the Data page: each page reading ``inp``'s kind, the input it uses (None before its first visit) and
    whether it will open on ``inp`` (it uses it, or opens on the Data page's newest input of the kind)."""
    rows = []
    for page in pages_using(inp.kind):
        used = page_selection(inp.kind, page.url_path)
        visited = (page.url_path, inp.kind) in _selected() or (page.url_path, inp.kind) in _pending()
        newest = newest_from_data_page(inp.kind)
        will = (
            used.fingerprint == inp.fingerprint
            if used is not None
            else not visited and newest is not None and newest.fingerprint == inp.fingerprint
        )
        rows.append((page, used, will))
    return rows


def pending_links() -> list[tuple[Page, LinkedInput, SessionInput | None]]:
    """Links opened in this session whose page has not opened on their data yet: the page, what it needs, and the
    loaded input that is that data (None while it is missing)."""
    titles = {p.url_path: p for p in PAGES}
    return [
        (titles[page], link, next((i for i in session_inputs(kind) if link.matches(i.fingerprint)), None))
        for (page, kind), link in _pending().items()
        if page in titles
    ]
