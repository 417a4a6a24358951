"""Data: the inputs of this session — add a shipped sample or an upload, map its columns, read its report."""

import streamlit as st

from engine.errors import InputError
from engine.io import INPUT_KINDS, SAMPLES, guess_kind, samples_of_kind
from views.forms import FORMS
from views.forms.common import digest, parse_table
from views.forms.connected import connect_section
from views.inputs import (
    add_input,
    load_sample,
    pages_reading,
    pending_links,
    remove_input,
    session_inputs,
    sidebar_card,
    use_on_page,
)
from views.navigation import routed
from views.session_input import SOURCE_TITLES, SessionInput
from views.state import md
from views.workspace import offered, remember_upload

SAMPLE, UPLOAD, CONNECT = "Shipped sample", "Upload a file", "Connect to data on the server"


def connected_input() -> SessionInput | None:
    """Rows on the server, added in the run where the user confirmed the mapping."""
    connected = connect_section()  # not None only in the run where the user confirmed the mapping
    return add_input(connected, on_data_page=True) if connected is not None else None


def chosen_sample() -> None:
    """A shipped sample: choosing one loads it (in the selectbox's callback)."""
    keys = [k for k, s in SAMPLES.items() if s.kind in FORMS]
    st.session_state.setdefault("sample_choice", keys[0])

    def load_chosen_sample() -> None:
        inp = load_sample(st.session_state["sample_choice"], on_data_page=True)
        st.session_state["_shown_input"] = inp.name

    choice = st.selectbox(
        "Sample",
        keys,
        key="sample_choice",
        on_change=load_chosen_sample,
        format_func=lambda k: f"{SAMPLES[k].title} — {INPUT_KINDS[SAMPLES[k].kind].title}",
    )
    st.caption(md(SAMPLES[choice].description))


def uploaded_input() -> SessionInput | None:
    """An upload: its kind (guessed, changeable), its column mapping, added once per mapping."""
    st.caption(
        f"CSV (comma, semicolon, tab or pipe delimited, optionally gzip-compressed), Parquet or NPZ, up to "
        f"{st.get_option('server.maxUploadSize')} MB (the server's `server.maxUploadSize`: "
        "`opstudio app` sets 200; with `streamlit run`, `--server.maxUploadSize N`). Larger data: connect to "
        "it on the server instead. The kind of input is guessed from the file; change it if the guess is "
        "wrong."
    )
    private = st.toggle("Private", key="upload_private", help="Only you (and whoever adds the same file) see it.")
    upload = st.file_uploader("File", key="upload")
    if upload is None:
        st.session_state.pop("_upload_processed", None)  # the same file uploaded again is added again
        st.session_state.pop("_upload_added", None)
        return None
    raw, name = upload.getvalue(), upload.name
    tag = digest(raw)[:12]  # a new file gets fresh widgets
    guess = guess_kind(raw)
    table = None
    if INPUT_KINDS[guess].tabular:
        try:
            table = parse_table(raw, name)
            guess = guess_kind(raw, table)
        except InputError:
            pass  # said below if the file is to be read as a table
    kinds = [k for k in INPUT_KINDS if k in FORMS]
    kind = st.selectbox(
        "Kind of input",
        kinds,
        index=kinds.index(guess),
        format_func=lambda k: INPUT_KINDS[k].title,
        key=f"kind_{tag}",
        help="What the file holds decides which pages can use it.",
    )
    st.caption(md(INPUT_KINDS[kind].what))
    if INPUT_KINDS[kind].tabular and table is None:
        try:
            table = parse_table(raw, name)
        except InputError as exc:
            st.error(f"**{md(name)} could not be read.** {md(exc)}")
            st.stop()
    st.subheader("Column mapping")
    candidate = FORMS[kind].mapping_form(raw, table, name, tag)
    if candidate is None:
        st.info("The inputs already loaded stay as they are until this file validates.")
        st.stop()
    if st.session_state.get("_upload_processed") == (kind, candidate.key):  # add each mapping once
        return None
    st.session_state["_upload_processed"] = (kind, candidate.key)
    remember_upload(raw, candidate, private=private)  # a workspace dataset: views and decisions can name it
    earlier = st.session_state.get("_upload_added")  # this upload's input: read as another kind, it is replaced
    added = add_input(candidate, on_data_page=True, replaces=earlier[1] if earlier and earlier[0] == tag else None)
    st.session_state["_upload_added"] = (tag, added.name)
    return added


def used_by(inp: SessionInput) -> str:
    """The pages that use the input (or will open on it) and those that could (they use another input)."""
    rows = pages_reading(inp)
    if not rows:
        return "Read by no page"
    using = [p.title for p, _, will in rows if will]
    others = [p.title for p, _, will in rows if not will]
    text = f"Used by {', '.join(using)}" if using else "Used by no page yet"
    return text + (f"; {', '.join(others)} can use it (choose it there or below)" if others else "")


def inputs_table(inputs: list[SessionInput]) -> None:
    """One line per input (a sentence wraps; a five-column table cut "Operating point, Ensemble paths" at 1,280 px)."""
    st.subheader("Inputs in this session")
    st.markdown(
        "\n".join(
            f"- **{md(i.name)}** — {md(i.kind_title.lower())}, {md(SOURCE_TITLES.get(i.source, i.source))}: "
            f"{md(FORMS[i.kind].summary(i))}. {md(used_by(i))}."
            for i in inputs
        )
    )


def use_buttons(shown: SessionInput) -> None:
    """Each page that reads the input's kind: whether it uses it, and a button that makes it the page's input."""
    for page, used, will in pages_reading(shown):
        c = st.columns([4, 2], vertical_alignment="center")
        if will:
            c[0].markdown(f"**{page.title}** {'uses it' if used is not None else 'will open on it'}.")
            continue
        if used is not None:
            c[0].markdown(f"**{page.title}** uses {md(used.name)}.")
        else:
            c[0].markdown(f"**{page.title}** will open on a newer input of this kind.")
        c[1].button(
            f"Use on {page.title}",
            key=f"use_on_{page.url_path}",
            on_click=use_on_page,
            args=(page.url_path, shown),
            help="Each page keeps its own input: this changes that page's alone.",
        )


def shown_input() -> SessionInput:
    """The input whose report the page shows (the one added last, or chosen): the sidebar names it too."""
    inputs = session_inputs()
    if not inputs:  # the first visit: the shipped sample chosen below is there to read
        inputs = [load_sample(st.session_state.get("sample_choice") or next(iter(samples_of_kind("rated"))))]
    names = [i.name for i in inputs]
    if st.session_state.get("_shown_input") not in names:
        st.session_state["_shown_input"] = names[-1]
    return next(i for i in inputs if i.name == st.session_state["_shown_input"])


def report_view(inputs: list[SessionInput]) -> None:
    """Which input's validation report to read (or remove), which pages use it, and the report."""
    names = [i.name for i in inputs]
    st.session_state["report_of"] = shown_input().name

    def show_chosen_report() -> None:
        st.session_state["_shown_input"] = st.session_state["report_of"]

    c = st.columns([3, 1])
    shown_name = c[0].selectbox("Show the validation report of", names, key="report_of", on_change=show_chosen_report)
    if c[1].button(
        "Remove this input",
        key="remove_input",
        disabled=len(inputs) < 2,
        help="A page that used it falls back to the newest input of the same kind or to its sample, and says so.",
    ):
        remove_input(shown_name)
        st.session_state.pop("_shown_input", None)
        st.rerun()
    shown = next(i for i in inputs if i.name == shown_name)
    st.subheader("Pages that read it")
    use_buttons(shown)
    st.subheader("Validation report")
    st.caption(f"**{md(shown.name)}** — {md(shown.kind_title)}")
    FORMS[shown.kind].report(shown)


def links_waiting() -> None:
    """A reopened link whose data is missing: what it needs, for which page (it opens on it once added here)."""
    for page, link, found in pending_links():
        if found is not None:
            st.success(f"**{md(found.name)}** is the data a link for **{page.title}** needs: it opens on it.")
        else:
            st.warning(
                f"A link for **{page.title}** needs {md(link.label)}: add that file here and {page.title} opens on it.",
                icon=":material/link_off:",
            )


ADD = {SAMPLE: chosen_sample, UPLOAD: uploaded_input, CONNECT: connected_input}

routed()  # a page Streamlit ran without app.py runs again through it (views.navigation.routed)
st.title("Data")
st.caption(
    "Every page works on an input of the kind it needs: rated data (Operating point, Ensemble paths), "
    "aggregated counts (Ensemble paths), score matrices (Early exit), a scored population and a reviewed "
    "audit (Below the line) and more. Each page keeps its own choice: an input added here is used by the pages "
    "not opened yet, and by any page you choose below. An upload is kept in the workspace's dataset store "
    "(shared with your team unless private) so that saved views and decisions can name it; rated data too "
    "large to upload can be connected where it lies on the server and counted there by DuckDB."
)
links_waiting()
sidebar_card(shown_input())  # before the forms: an upload that does not validate stops the page below
st.subheader("Add an input")
source = st.radio(
    "Source", offered({SAMPLE: None, UPLOAD: "upload", CONNECT: "connect"}), horizontal=True, key="data_source"
)
added = ADD[source]()
if added is not None:
    st.session_state["_shown_input"] = added.name
    st.rerun()  # the inputs table and the pages that will use it
inputs = session_inputs()
inputs_table(inputs)
report_view(inputs)
