"""Data: the inputs of this session — add a shipped sample or an upload, map its columns, read its report."""

import streamlit as st

from engine.errors import InputError
from engine.io import INPUT_KINDS, SAMPLES, guess_kind
from engine.pages import pages_using
from views.forms import FORMS
from views.forms.common import digest, parse_table
from views.forms.connected import connect_section
from views.inputs import add_input, current_dataset, load_sample, remove_input, session_inputs, set_active
from views.session_input import SOURCE_TITLES, SessionInput
from views.state import md
from views.workspace import offered, remember_upload

SAMPLE, UPLOAD, CONNECT = "Shipped sample", "Upload a file", "Connect to data on the server"


def connected_input() -> SessionInput | None:
    """Rows on the server, added in the run where the user confirmed the mapping."""
    connected = connect_section()  # not None only in the run where the user confirmed the mapping
    return add_input(connected) if connected is not None else None


def chosen_sample() -> None:
    """A shipped sample: choosing one loads it (in the selectbox's callback)."""
    keys = [k for k, s in SAMPLES.items() if s.kind in FORMS]
    active = current_dataset()
    st.session_state.setdefault("sample_choice", active.sample_key if active.source == "sample" else keys[0])

    def load_chosen_sample() -> None:
        inp = load_sample(st.session_state["sample_choice"])
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
    return add_input(candidate)


def inputs_table(inputs: list[SessionInput]) -> None:
    """One line per input (a sentence wraps; a five-column table cut "Operating point, Ensemble paths" at 1,280 px)."""
    st.subheader("Inputs in this session")
    st.markdown(
        "\n".join(
            f"- **{md(i.name)}** — {md(i.kind_title.lower())}, {md(SOURCE_TITLES.get(i.source, i.source))}: "
            f"{md(FORMS[i.kind].summary(i))}. Used by {md(', '.join(p.title for p in pages_using(i.kind)))}."
            for i in inputs
        )
    )


def report_view(inputs: list[SessionInput]) -> None:
    """Which input's validation report to read (or remove), and the report."""
    names = [i.name for i in inputs]
    if st.session_state.get("_shown_input") not in names:
        st.session_state["_shown_input"] = names[-1]
    st.session_state["report_of"] = st.session_state["_shown_input"]

    def show_chosen_report() -> None:
        st.session_state["_shown_input"] = st.session_state["report_of"]

    c = st.columns([3, 1])
    shown_name = c[0].selectbox("Show the validation report of", names, key="report_of", on_change=show_chosen_report)
    if c[1].button(
        "Remove this input",
        key="remove_input",
        disabled=len(inputs) < 2,
        help="The page that used it falls back to another input of the same kind or to its sample.",
    ):
        remove_input(shown_name)
        st.session_state.pop("_shown_input", None)
        st.rerun()
    shown = next(i for i in inputs if i.name == shown_name)
    st.subheader("Validation report")
    st.caption(f"**{md(shown.name)}** — {md(shown.kind_title)}")
    FORMS[shown.kind].report(shown)


ADD = {SAMPLE: chosen_sample, UPLOAD: uploaded_input, CONNECT: connected_input}

st.title("Data")
st.caption(
    "Every page works on an input of the kind it needs: rated data (Operating point, Ensemble paths), "
    "aggregated counts (Ensemble paths), score matrices (Early exit), a scored population and a reviewed "
    "audit (Below the line) and more. An upload is kept in the workspace's dataset store (shared with your "
    "team unless private) so that saved views and decisions can name it; rated data too large to upload can "
    "be connected where it lies on the server and counted there by DuckDB."
)
current_dataset()  # the default rated sample is there from the first visit
st.subheader("Add an input")
source = st.radio(
    "Source", offered({SAMPLE: None, UPLOAD: "upload", CONNECT: "connect"}), horizontal=True, key="data_source"
)
added = ADD[source]()
if added is not None:
    set_active(added)
    st.session_state["_shown_input"] = added.name
    st.rerun()  # refresh the sidebar status
inputs = session_inputs()
inputs_table(inputs)
report_view(inputs)
