"""Data: upload rated data or pick a shipped sample, map the columns, read the validation report."""

import pandas as pd
import streamlit as st

from engine.errors import RatedDataError
from engine.io import ColumnMapping, detect_columns
from engine.pn.figures import score_histogram_figure
from views.state import (
    RATED_SAMPLES,
    Dataset,
    current_dataset,
    load_sample,
    md,
    parse_bytes,
    sample_description,
    set_dataset,
    validate,
)

st.title("Data")
dataset = current_dataset()
limit_mb = st.get_option("server.maxUploadSize")

# widget defaults come from the loaded data set once; later the widgets own their state
st.session_state.setdefault("data_source", "Shipped sample" if dataset.source == "sample" else "Upload a file")
source = st.radio("Source", ["Shipped sample", "Upload a file"], horizontal=True, key="data_source")

if source == "Shipped sample":
    keys = list(RATED_SAMPLES)
    st.session_state.setdefault("sample_choice", dataset.sample_key if dataset.source == "sample" else keys[0])
    choice = st.selectbox("Sample", keys, format_func=RATED_SAMPLES.get, key="sample_choice")
    st.caption(sample_description(choice))
    if dataset.source != "sample" or dataset.sample_key != choice:
        load_sample(choice)
        st.rerun()  # refresh the sidebar status
else:
    st.caption(f"CSV (comma, semicolon, tab or pipe delimited, optionally gzip-compressed) or Parquet, up to "
               f"{limit_mb} MB (set by `server.maxUploadSize` in `.streamlit/config.toml`). One row per rated "
               "document: a score column per classifier and the raters' verdict (1/0, yes/no, tp/fp, ...; "
               "empty = not rated yet). The file stays in your session and is never written to disk.")
    upload = st.file_uploader("Rated data", type=["csv", "tsv", "txt", "gz", "parquet", "pq"], key="upload")
    if upload is not None:
        try:
            table = parse_bytes(upload.getvalue(), upload.name)
        except RatedDataError as exc:
            st.error(f"**{md(upload.name)} could not be read.** {md(exc)}")
            st.stop()
        columns = list(table.frame.columns)
        try:
            guess = detect_columns(table.frame)
        except RatedDataError as exc:
            st.warning(f"Automatic column detection needs help: {md(exc)}")
            guess = None
        st.subheader("Column mapping")
        tag = table.fingerprint[:12]  # new file -> fresh widgets
        none = "(none)"
        c1, c2, c3, c4 = st.columns([3, 2, 2, 2])
        score_cols = c1.multiselect("Score columns (one per classifier)", columns,
                                    default=list(guess.score_cols) if guess else [], key=f"scores_{tag}")
        label_options = columns
        label_default = label_options.index(guess.label_col) if guess else 0
        label_col = c2.selectbox("Label column", label_options, index=label_default, key=f"label_{tag}")
        optional = [none, *columns]
        weight_col = c3.selectbox("Weight column", optional,
                                  index=optional.index(guess.weight_col) if guess and guess.weight_col else 0,
                                  key=f"weight_{tag}")
        group_col = c4.selectbox("Group column", optional,
                                 index=optional.index(guess.group_col) if guess and guess.group_col else 0,
                                 key=f"group_{tag}")
        if not score_cols:
            st.error("Choose at least one score column: each classifier needs a column of numeric scores.")
            st.stop()
        mapping = ColumnMapping(tuple(score_cols), label_col, None if weight_col == none else weight_col,
                                None if group_col == none else group_col)
        try:
            rated = validate(table, mapping)
        except RatedDataError as exc:
            st.error(f"**{md(upload.name)} is not valid rated data.** {md(exc)}")
            st.info("The previously loaded data set stays active until this file validates.")
            st.stop()
        if dataset.source != "upload" or dataset.key != (table.fingerprint, rated.mapping):
            dataset = Dataset("upload", None, table, rated)
            set_dataset(dataset)
            st.rerun()  # refresh the sidebar status
    elif dataset.source == "upload":
        st.info(f"Showing the uploaded file **{md(dataset.rated.name)}** loaded earlier in this session.")

d = dataset.rated
st.subheader("Validation report")
m = st.columns(5)
m[0].metric("Rows read", f"{d.n_read:,}")
m[1].metric("Rated rows", f"{d.n_rated:,}")
m[2].metric("Unrated (excluded)", f"{d.n_unrated:,}")
m[3].metric("Rated positives", f"{d.positives:,.6g}")
m[4].metric("Prevalence among rated", f"{d.prevalence_among_rated:.2%}")
floors = pd.DataFrame({"classifier": d.score_names, "rating floor (lowest rated score)": d.rating_floor,
                       "highest rated score": d.scores.max(axis=0)})
st.dataframe(floors, hide_index=True)
mapping_text = (f"Scores: {', '.join(d.score_names)} · label: {d.mapping.label_col} · weight: "
                f"{d.mapping.weight_col or 'none (1 per row)'} · group: {d.mapping.group_col or 'none'}")
st.caption(md(mapping_text))
if d.mapping.ignored_cols:
    st.caption(f"Columns not used: {md(', '.join(d.mapping.ignored_cols))}")
for warning in d.warnings:
    st.warning(md(warning))
if d.n_unrated:
    excluded = pd.DataFrame({"row (1 = first data row)": d.unrated_rows + 1, "reason": "no label (unrated)"})
    with st.expander(f"All {d.n_unrated:,} excluded rows"):
        st.dataframe(excluded, hide_index=True, height=240)
        st.download_button("Download the excluded rows (CSV)", excluded.to_csv(index=False).encode(),
                           file_name="excluded_rows.csv", mime="text/csv")

st.subheader("Preview")
st.dataframe(dataset.table.frame.head(200), height=280)

st.subheader("Scores by rated label")
cols = st.columns(min(2, d.n_classifiers))
for j, name in enumerate(d.score_names):
    with cols[j % len(cols)]:
        st.plotly_chart(score_histogram_figure(d.scores[:, j], d.labels, name), key=f"hist_{j}")
if d.n_classifiers == 1:
    st.caption("One classifier: the Ensemble paths page needs two or more score columns.")
