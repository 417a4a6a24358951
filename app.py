"""Operating Point Studio: the dashboard entry point (``streamlit run app.py`` or ``opstudio app``)."""

import streamlit as st

from engine.pages import PAGES
from views import housekeeping
from views.identity import gate, identity_sidebar
from views.inputs import add_input, current_dataset, session_inputs
from views.navigation import remember_page
from views.state import md
from views.workspace import open_view, remember_drawn, view_sidebar

st.set_page_config(page_title="Operating Point Studio", page_icon=":material/tune:", layout="wide")
housekeeping.start()  # closed tabs' sessions are shut down and their memory returned
identity = gate()  # with logins: nothing of the workspace before one (views/identity.py)
if identity is None:
    st.stop()

page = st.navigation(
    [st.Page(p.script, title=p.title, icon=p.icon, url_path=p.url_path, default=p.default) for p in PAGES]
)
remember_page(page.url_path)  # the page's own links ("Reopen this view") are made from it
identity_sidebar(identity)
open_view(page.url_path, lambda _page, inp: add_input(inp))  # ?view=<id>: its settings and datasets

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

try:
    page.run()
finally:  # a page that stopped early still names the settings it drew
    remember_drawn(page.url_path)
view_sidebar(page.url_path)  # Save view, once every setting of the page is drawn
