"""The workspace in the dashboard: datasets read from the store, saved views, and the Save view widget.

**Datasets.** An upload becomes a workspace dataset when it is added on the Data page (its bytes in
the store under their SHA-256, owned by whoever uploaded it, shared with the team unless marked
private: :func:`remember_upload`); a shipped sample becomes one when a view or a decision first reads
it. A dataset a view reads is read from the store and validated once per server, whatever the number
of sessions reading it, and held in the server's byte-budgeted cache (:func:`dataset_input`); the
session's identity is checked against the dataset first, every time.

**Views.** *Save view* (in the sidebar of every page that reads data) stores the page, the value of
every setting widget the page drew, and the inputs it reads (kind, SHA-256, name, column mapping), and
shows the permanent link ``$OPSTUDIO_PUBLIC_URL/<page>?view=<id>`` (the server's own address when the
variable is unset). Opening it (:func:`open_view`, before the page draws) sets those widgets and makes
those datasets the page's inputs: the same numbers in any session, after a restart, on any server that
shares the database and the store. A link the identity may not open says why and shows nothing else.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from urllib.parse import urlsplit

import streamlit as st

from engine.errors import InputError
from engine.io import SAMPLES, sample_path
from engine.pages import PAGES, Page, page_for
from engine.record import public_url
from engine.workspace import Identity, View
from views.forms import FORMS
from views.forms.common import mapping_fields
from views.identity import allowed, current_identity, workspace
from views.inputs import page_selection, shared_sample
from views.navigation import go_to
from views.session_input import SessionInput
from views.state import SERVER_WIDE, md, memo

#: the query parameter of a saved view's link
VIEW_PARAM = "view"
#: widget value types a view restores (Streamlit's names): buttons, uploads and editors are not settings
SETTING_TYPES = frozenset(
    {"bool_value", "double_value", "int_value", "string_value", "string_array_value", "double_array_value"}
)
_DRAWN = "_drawn_widgets"  # page URL path -> {widget key: value type} of the setting widgets its last full run drew
_SAVED = "_saved_view"  # (page, view id, link) of the view this session saved last
_MAX_TEXT = 10_000
_MAX_ITEMS = 1_000


# --- where links point --------------------------------------------------------------------------------------------


def public_base() -> str:
    """The address links start with: ``OPSTUDIO_PUBLIC_URL`` when set, else the address this browser used (``""``
    without a browser: links are then paths, which the exported record writes on the public address)."""
    if public_url():
        return public_url()
    try:
        here = urlsplit(st.context.url or "")
    except Exception:  # no browser (AppTest): the workspace's default
        here = None
    if here is None or here.scheme not in ("http", "https") or not here.netloc:
        return ""  # no browser (AppTest): a path, as views.navigation's links are
    base = here.path.rstrip("/")
    last = base.rsplit("/", 1)[-1]
    if last and any(last == p for p in _page_paths()):
        base = base[: -len(last) - 1]
    return f"{here.scheme}://{here.netloc}{base}"


def _page_paths() -> list[str]:
    return [p.url_path for p in PAGES]


def _page(url_path: str) -> Page:
    """The page at a URL path (the default page is served at ``""``)."""
    return next((p for p in PAGES if p.default), PAGES[0]) if not url_path else page_for(url_path)


def view_link(view: View) -> str:
    """``<public base>/<page>?view=<id>``."""
    return f"{public_base()}/{view.page}?{VIEW_PARAM}={view.id}"


def decision_link(decision_id: int) -> str:
    """``<public base>/decisions?decision=<id>``."""
    return f"{public_base()}/decisions?decision={int(decision_id)}"


# --- datasets ------------------------------------------------------------------------------------------------------


def input_ref(inp: SessionInput) -> dict:
    """How a view names an input: kind, SHA-256, name, column mapping (JSON) and shipped sample."""
    return {
        "kind": inp.kind,
        "sha256": inp.fingerprint,
        "name": inp.name,
        "mapping": mapping_fields(inp.mapping),
        "sample": inp.sample_key,
    }


def dataset_input(ref: dict, identity: Identity) -> SessionInput:
    """The input a view names, read from the workspace's store once per server (after checking ``identity`` may
    open the dataset: a private dataset of others is refused, its bytes never read for them).

    Raises
    ------
    InputError
        The dataset is not in the workspace, or ``identity`` may not open it (:class:`engine.workspace.AccessError`),
        or the stored bytes no longer read as the view's input.
    """
    if not isinstance(ref, dict) or ref.get("kind") not in FORMS or not isinstance(ref.get("sha256"), str):
        raise InputError("the view names an input this studio does not read; save the view again.")
    ws = workspace()
    dataset = ws.dataset(ref["sha256"], identity)
    name = str(ref.get("name") or dataset.name)[:255]
    mapping = ref.get("mapping")
    # server-wide: released with the dataset's results once no session reads it (views.state.release_unread)
    key = ("workspace dataset", SERVER_WIDE, dataset.sha256, ref["kind"], json.dumps(mapping, sort_keys=True))

    sample = ref.get("sample")
    if sample in SAMPLES and SAMPLES[sample].kind == ref["kind"]:  # a shipped sample: the server's one copy
        shipped = shared_sample(sample)
        if shipped.fingerprint == dataset.sha256 and mapping_fields(shipped.mapping) == mapping:
            return shipped

    def read() -> SessionInput:
        raw = ws.dataset_bytes(dataset.sha256, identity)
        return FORMS[ref["kind"]].restore(raw, name, mapping)

    held = memo(key, read)  # once per server, within the server cache's byte budget
    return held if held.name == name else _renamed(held, name)


def _renamed(inp: SessionInput, name: str) -> SessionInput:
    import dataclasses

    return dataclasses.replace(inp, name=name)


def store_input(inp: SessionInput, identity: Identity) -> str:
    """The SHA-256 of ``inp`` as a workspace dataset, adding a shipped sample's bytes (or a kept upload's) first.

    Raises
    ------
    InputError
        Data counted on the server, or an upload the workspace does not hold (uploaded while it was unavailable).
    """
    ws = workspace()
    if inp.source == "server":
        raise InputError(
            f"'{inp.name}' is counted on the server by DuckDB: its rows are not in the workspace's store, so a view "
            "or a decision cannot name it. Upload the file (or a sample of it) to share it."
        )
    try:
        return ws.dataset(inp.fingerprint, identity).sha256
    except InputError:
        pass
    if inp.source == "sample" and inp.sample_key:
        path = sample_path(inp.sample_key)
        raw = path.read_bytes()
        return ws.add_dataset(raw, identity, name=path.name, kind=inp.kind).sha256
    if inp.raw is not None:
        return ws.add_dataset(inp.raw, identity, name=inp.name, kind=inp.kind).sha256
    raise InputError(f"'{inp.name}' is not in the workspace: add the file again on the Data page.")


def remember_upload(raw: bytes, inp: SessionInput, *, private: bool = False) -> str | None:
    """The Data page's upload, added to the workspace (when this identity may upload); its SHA-256, or None.

    ``private``: visible only to the people who add these bytes (bytes someone added before keep their first
    privacy). Shows why when it could not be kept (the session still uses the upload; views and decisions then
    refuse it).
    """
    if not allowed("upload"):
        return None
    try:
        ws = workspace()
        return ws.add_dataset(raw, current_identity(), name=inp.name, kind=inp.kind, private=private).sha256
    except InputError as exc:
        st.warning(f"The upload is used in this session but not kept in the workspace: {md(exc)}")
        return None


def offered(sources: dict[str, str | None]) -> list[str]:
    """The Data page's ways to add an input this identity may use (label -> the action it needs, None for none);
    a caption says why the others are not offered."""
    refused = {label: allowed(action) for label, action in sources.items() if action is not None}
    for label, permission in refused.items():
        if not permission:
            st.caption(f"{label} is not offered: {md(permission.reason)}")
    return [label for label in sources if label not in refused or refused[label]]


# --- the page's settings -------------------------------------------------------------------------------------------


def _widgets_this_run() -> dict[str, str]:
    """Key -> value type of the keyed widgets drawn so far in this run ({} when Streamlit's run context moved)."""
    try:
        from streamlit.runtime.scriptrunner import get_script_run_ctx

        ctx = get_script_run_ctx()
        drawn = getattr(ctx, "shared", ctx).widget_user_keys_this_run
        keys = drawn.snapshot() if hasattr(drawn, "snapshot") else set(drawn)
        state = ctx.session_state._state
        ids, metadata = state._key_id_mapper, state._new_widget_state.widget_metadata
        found = {k: metadata.get(ids.get_id_from_key(k, "")) for k in keys}
        return {k: m.value_type for k, m in found.items() if m is not None}
    except Exception:  # another Streamlit: views then hold the settings in the URL (bound widgets)
        return {}


def remember_drawn(page: str) -> None:
    """After a full run of ``page`` (``app.py``): note its setting widgets, for Save view and Propose decision."""
    widgets = {k: t for k, t in _widgets_this_run().items() if t in SETTING_TYPES and not k.startswith("_")}
    st.session_state.setdefault(_DRAWN, {})[page] = widgets


def _plain(value) -> bool:
    """A value a view stores and restores: text, a finite number, a flag, or a list of those."""
    if isinstance(value, bool) or value is None:
        return True
    if isinstance(value, str):
        return len(value) <= _MAX_TEXT
    if isinstance(value, (int, float)):
        return math.isfinite(value)
    if isinstance(value, (list, tuple)):
        return len(value) <= _MAX_ITEMS and all(not isinstance(v, (list, tuple)) and _plain(v) for v in value)
    return False


def page_settings(page: str) -> dict:
    """Every setting widget of ``page`` (drawn in its last full run or in this run) with its value now."""
    keys = set(st.session_state.get(_DRAWN, {}).get(page, {}))
    keys |= {k for k, t in _widgets_this_run().items() if t in SETTING_TYPES and not k.startswith("_")}
    values = {k: st.session_state[k] for k in sorted(keys) if k in st.session_state}
    return {k: list(v) if isinstance(v, tuple) else v for k, v in values.items() if _plain(v)}


def page_inputs(page: str) -> list[SessionInput]:
    """The inputs ``page`` reads in this session (one per kind it chose an input for), in the page's order."""
    chosen = (page_selection(kind, page) for kind in _page(page).input_kinds)
    return [inp for inp in chosen if inp is not None]


# --- saving and opening views --------------------------------------------------------------------------------------


def save_view(page: str, *, private: bool = False) -> View:
    """Save ``page`` as this session shows it: its settings and its inputs (stored in the workspace first).

    Raises
    ------
    InputError
        Not allowed (the reason), an input that cannot be a workspace dataset, or a settings value refused.
    """
    identity = current_identity()
    allowed("save_view").check()
    inputs = page_inputs(page)
    shas = [store_input(inp, identity) for inp in inputs]
    settings = {"widgets": page_settings(page), "inputs": [input_ref(inp) for inp in inputs]}
    return workspace().save_view(page, settings, shas, identity, private=private)


def _refuse(message: str) -> None:
    """A link that cannot be opened: why, and nothing else of the page."""
    st.error(f"This link cannot be opened: {md(message)}", icon=":material/link_off:")
    go_to("home")
    st.stop()


def _widget_values(view: View) -> dict:
    widgets = view.settings.get("widgets", {}) if isinstance(view.settings, dict) else {}
    if not isinstance(widgets, dict):
        return {}
    return {k: v for k, v in widgets.items() if isinstance(k, str) and 0 < len(k) <= 200 and k[0] != "_" and _plain(v)}


def open_view(page: str, use_input: Callable[[str, SessionInput], None]) -> View | None:
    """Apply ``?view=<id>`` to ``page`` before it draws (``app.py``): its settings, and its datasets as the page's
    inputs (``use_input(page, inp)``). The parameter is then dropped: the page goes on from the view.

    A view of another page opens there. A view the identity may not open (private, or reading a dataset private to
    others) or whose data is gone: the page says why and stops. Returns the view applied, or None without the
    parameter.
    """
    raw = st.query_params.get(VIEW_PARAM)
    if raw is None:
        return None
    try:
        identity = current_identity()
        view = workspace().view(str(raw).strip(), identity)
        if view.page != page:  # a view of another page (a link edited by hand): open it there
            st.switch_page(page_for(view.page).script, query_params={VIEW_PARAM: str(view.id)})
        refs = view.settings.get("inputs", []) if isinstance(view.settings, dict) else []
        inputs = [dataset_input(ref, identity) for ref in (refs if isinstance(refs, list) else [])]
    except InputError as exc:
        _refuse(str(exc))
    for inp in inputs:
        use_input(page, inp)
    for key, value in _widget_values(view).items():
        st.session_state[key] = value
    del st.query_params[VIEW_PARAM]
    st.session_state["_opened_view"] = (page, view.id, view.owner, view.created_at)
    return view


def view_sidebar(page: str) -> None:
    """Save view, in the sidebar of a page that reads data (after the page drew: every setting is known)."""
    if not _page(page).input_kinds:
        return
    with st.sidebar:
        st.subheader("This view")
        opened = st.session_state.get("_opened_view")
        if opened and opened[0] == page:
            st.caption(md(f"Opened from view {opened[1]}, saved by {opened[2]} at {opened[3][:16].replace('T', ' ')}."))
        permission = allowed("save_view")
        if not permission:
            st.caption(md(permission.reason))
            return
        private = st.toggle("Private", key="view_private", help="Only you can open a private view.")
        if st.button("Save view", key="save_view", icon=":material/bookmark_add:"):
            try:
                view = save_view(page, private=private)
                st.session_state[_SAVED] = (page, view.id, view_link(view))
            except InputError as exc:
                st.error(md(exc))
        saved = st.session_state.get(_SAVED)
        if saved and saved[0] == page:
            st.caption(f"View {saved[1]} saved: its permanent link (settings and data as they were when saved)")
            st.code(saved[2], language=None, wrap_lines=True)
