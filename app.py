"""Operating Point Studio: the dashboard entry point (``streamlit run app.py`` or ``opstudio app``)."""

import streamlit as st

from engine.pages import PAGES
from views import housekeeping
from views.identity import gate, identity_sidebar
from views.inputs import add_input, session_inputs, use_on_page
from views.navigation import remember_page, run_page
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
# ?view=<id>: its settings, and its datasets as this page's inputs
open_view(page.url_path, lambda on_page, inp: use_on_page(on_page, add_input(inp)))

with st.sidebar:
    st.subheader("Data on this page")  # each page's pickers add the input they use below (views.inputs)
    # the default page's path is "" (it is served at the root)
    shown = next(p for p in PAGES if p.url_path == page.url_path or (p.default and not page.url_path))
    if not shown.input_kinds and shown.url_path != "data":
        st.caption("This page reads no data. Each page keeps its own choice of input: open a page to see it here.")
        loaded = session_inputs()
        if loaded:
            st.caption(
                "Inputs in this session: " + "; ".join(f"{md(i.name)} ({md(i.kind_title.lower())})" for i in loaded)
            )

try:
    run_page(page)
finally:  # a page that stopped early still names the settings it drew
    remember_drawn(page.url_path)
view_sidebar(page.url_path)  # Save view, once every setting of the page is drawn
