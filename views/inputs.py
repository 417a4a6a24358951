"""Inputs of this session: several named inputs, each of one kind, and the pickers pages use.

An input (:class:`views.session_input.SessionInput`) is a validated engine object
(rated data, aggregated counts, a score matrix ...) with its name, kind, source and
the SHA-256 of its bytes. Inputs live in ``st.session_state`` only: nothing is
written to disk. Each kind's column-mapping form, sample loader and validation
report are in ``views/forms``, which this module loads samples with.
"""

from __future__ import annotations

import dataclasses
import re
from collections import OrderedDict

import streamlit as st

from engine.io import INPUT_KINDS, SAMPLES, samples_of_kind
from views.forms import FORMS
from views.navigation import DATA_PARAM, go_to
from views.session_input import SOURCE_TITLES, SessionInput
from views.state import server_memo

_STORE = "_inputs"  # name -> SessionInput, in the order they were added
_ACTIVE = "_active_input"  # kind -> name of the input the pages use


def _store() -> OrderedDict:
    return st.session_state.setdefault(_STORE, OrderedDict())


def session_inputs(kind: str | None = None) -> list[SessionInput]:
    """Inputs of this session (of one kind, or all), oldest first."""
    return [i for i in _store().values() if kind is None or i.kind == kind]


def add_input(inp: SessionInput, *, activate: bool = True) -> SessionInput:
    """Add an input and make it its kind's active input.

    The same bytes read as the same kind replace the earlier input under its name
    (a remapped upload updates, it does not pile up); another input with the same
    name gets a numbered name.
    """
    store = _store()
    same = next((i for i in store.values() if i.kind == inp.kind and i.fingerprint == inp.fingerprint), None)
    if same is not None:
        inp = dataclasses.replace(inp, name=same.name)
    else:
        name, n = inp.name, 2
        while name in store:
            name, n = f"{inp.name} ({n})", n + 1
        inp = dataclasses.replace(inp, name=name)
    store[inp.name] = inp
    if activate:
        set_active(inp)
    return inp


def remove_input(name: str) -> None:
    """Forget an input; a kind whose active input it was falls back to its newest other input or its sample."""
    inp = _store().pop(name, None)
    active = st.session_state.setdefault(_ACTIVE, {})
    if inp is not None and active.get(inp.kind) == name:
        del active[inp.kind]


def set_active(inp: SessionInput) -> None:
    st.session_state.setdefault(_ACTIVE, {})[inp.kind] = inp.name
    if inp.kind == "rated":
        if inp.source == "sample":
            st.query_params["sample"] = inp.sample_key
        elif "sample" in st.query_params:
            del st.query_params["sample"]


def shared_sample(key: str) -> SessionInput:
    """A shipped sample read and validated once per server: public, read-only data every session shares (held in
    the server's byte-budgeted cache, :func:`views.state.server_memo`)."""
    return server_memo(("sample", key), lambda: FORMS[SAMPLES[key].kind].load_sample(key))


def load_sample(key: str, *, activate: bool = True) -> SessionInput:
    """A shipped sample as a session input (the server's one copy, :func:`shared_sample`, under this session's name)."""
    existing = next((i for i in session_inputs() if i.sample_key == key), None)
    if existing is not None:
        if activate:
            set_active(existing)
        return existing
    return add_input(shared_sample(key), activate=activate)


def active_input(kind: str) -> SessionInput | None:
    """The input of ``kind`` the pages use: the one last chosen, else the newest, else the kind's first sample."""
    store = _store()
    name = st.session_state.setdefault(_ACTIVE, {}).get(kind)
    if name in store:
        return store[name]
    of_kind = session_inputs(kind)
    if of_kind:
        set_active(of_kind[-1])
        return of_kind[-1]
    samples = list(samples_of_kind(kind))
    return load_sample(samples[0]) if samples else None


def current_dataset() -> SessionInput:
    """The active rated data; on first open the sample named in the URL (or the first rated sample) is loaded."""
    if not session_inputs("rated"):
        wanted = st.query_params.get("sample")
        if wanted in samples_of_kind("rated"):
            return load_sample(wanted)
    return active_input("rated")


def _linked_input(kind: str, key: str, loaded: dict) -> SessionInput | None:
    """The input a reopened link was made on (its ``data`` parameter), or None when the link names none.

    When no input of the session (nor a shipped sample) has that SHA-256, the page says which data it
    needs and offers the Data page; it does not switch silently to a sample.
    """
    wanted = str(st.query_params.get(DATA_PARAM, "") or "").lower()
    if not wanted:
        return None
    if not re.fullmatch(r"[0-9a-f]{8,64}", wanted):  # not a digest of ours: say so, as text
        st.warning("This link names its data by something that is not a SHA-256 prefix; it is ignored.")
        del st.query_params[DATA_PARAM]
        return None
    match = next((i for i in loaded.values() if i.fingerprint.startswith(wanted)), None)
    if match is None:
        for sample_key in samples_of_kind(kind):
            sample = load_sample(sample_key, activate=False)
            if sample.fingerprint.startswith(wanted):
                match = sample
                break
    if match is not None:
        del st.query_params[DATA_PARAM]  # applied once: the user may choose other data afterwards
        set_active(match)
        return match
    if any(i.fingerprint.startswith(wanted) for i in session_inputs()):
        return None  # the link's data is another kind of input on this page (the feature table of a model)
    st.warning(
        f"This link was made on data whose SHA-256 begins with {wanted}; that data is not loaded in this "
        "session. Add the same file on the Data page, then open the link again, or continue with the data "
        "loaded here.",
        icon=":material/link_off:",
    )
    go_to("data")
    if st.button("Continue with the data loaded here", key=f"{key}_ignore_link"):
        del st.query_params[DATA_PARAM]
        st.rerun()
    st.stop()


def input_picker(kind: str, *, key: str, label: str | None = None) -> SessionInput | None:
    """Choose the input of ``kind`` this page works on: the session's inputs of that kind and the shipped
    samples not loaded yet. The choice becomes the kind's active input; a caption says which one is used."""
    kind_info = INPUT_KINDS[kind]
    current = active_input(kind) if kind != "rated" else current_dataset()
    loaded = {i.name: i for i in session_inputs(kind)}
    options = list(loaded) + [
        f"sample:{k}" for k, s in samples_of_kind(kind).items() if all(i.sample_key != k for i in loaded.values())
    ]
    if not options:
        st.info(f"No {kind_info.title.lower()} loaded yet. Add one on the Data page: {kind_info.what}")
        go_to("data")
        return None
    linked = _linked_input(kind, key, loaded)
    if linked is not None:  # a link from a decision record names its data: open exactly that
        current = linked
        options = [linked.name] + [o for o in options if o not in (linked.name, f"sample:{linked.sample_key}")]
        loaded[linked.name] = linked
        st.session_state[key] = linked.name
    synced = f"_picked_{key}"  # the active input this picker last showed
    if (
        current is not None
        and current.name in options
        and (st.session_state.get(synced) != current.name or st.session_state.get(key) not in options)
    ):
        st.session_state[key] = current.name  # follow the active input chosen elsewhere (e.g. on the Data page)

    def show(option: str) -> str:
        if option.startswith("sample:"):
            return f"{SAMPLES[option[7:]].title} (shipped sample)"
        inp = loaded[option]
        return f"{inp.name} ({SOURCE_TITLES.get(inp.source, inp.source)})"

    choice = st.selectbox(label or kind_info.title, options, format_func=show, key=key)
    chosen = load_sample(choice[7:]) if choice.startswith("sample:") else loaded[choice]
    if current is None or chosen.name != current.name:
        set_active(chosen)
    st.session_state[synced] = chosen.name  # the user's next choice here stands (it is not the active one yet)
    return chosen
