"""Operating Point Studio: the dashboard entry point (``streamlit run app.py`` or ``opstudio app``)."""

import streamlit as st

from views import housekeeping
from views.inputs import current_dataset, session_inputs
from views.state import md

st.set_page_config(page_title="Operating Point Studio", page_icon=":material/tune:", layout="wide")
housekeeping.start()  # closed tabs' sessions are shut down and their memory returned

PAGES = [
    st.Page("views/home.py", title="Home", icon=":material/home:", url_path="home", default=True),
    st.Page("views/data.py", title="Data", icon=":material/upload_file:", url_path="data"),
    st.Page("views/operating_point.py", title="Operating point", icon=":material/tune:", url_path="operating-point"),
    st.Page("views/ensemble_paths.py", title="Ensemble paths", icon=":material/timeline:", url_path="ensemble-paths"),
    st.Page("views/batch_decisions.py", title="Batch decisions", icon=":material/checklist:", url_path="batch-decisions"),
    st.Page("views/early_exit.py", title="Early exit (QWYC)", icon=":material/speed:", url_path="early-exit"),
    st.Page("views/constraints.py", title="Constrained training", icon=":material/balance:", url_path="constraints"),
    st.Page("views/record.py", title="Decision record", icon=":material/description:", url_path="record"),
]
page = st.navigation(PAGES)

with st.sidebar:
    st.subheader("Rated data in use")
    try:
        dataset = current_dataset()
    except Exception as exc:  # a broken shipped sample must not take the app down
        dataset = None
        st.error(f"The sample data could not be loaded: {md(exc)}")
    if dataset is None:
        st.info("No rated data loaded. Open **Data** to upload rated data or pick a sample.")
    else:
        d = dataset.rated
        where = {"sample": "sample", "upload": "upload", "server": "on the server, counted by DuckDB"}
        st.markdown(f"**{md(d.name)}** ({where.get(dataset.source, dataset.source)})")
        # one metric per row: side by side, "1,000,000" did not fit half the sidebar ("1,00…")
        st.metric("Rated rows", f"{d.n_rated:,}")
        st.metric("Unrated rows", f"{d.n_unrated:,}")
        st.caption(f"Classifiers: {md(', '.join(d.score_names))}")
        st.caption(f"Prevalence among rated: {d.prevalence_among_rated:.2%}")
    others = [i for i in session_inputs() if i.kind != "rated"]
    if others:
        st.caption("Other inputs: " + "; ".join(f"{md(i.name)} ({md(i.kind_title.lower())})" for i in others))

page.run()
