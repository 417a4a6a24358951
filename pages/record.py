"""Decision record: the results added from the pages, ordered, annotated and exported as one document."""

import streamlit as st

from engine.errors import InputError
from engine.record import PUBLIC_URL_ENV, public_url, read_record_json, record_html, record_json, record_pdf
from engine.reporting import safe_href
from views.navigation import go_to, routed
from views.record_button import record_items, set_record_items
from views.state import md

routed()  # a page Streamlit ran without app.py runs again through it (views.navigation.routed)
st.title("Decision record")
st.caption(
    "Every page has **Add to decision record** for its current result. Order the items, annotate them, "
    "remove what is not needed, and export one document: HTML (interactive figures, opens offline), "
    "PDF, or JSON (which this page imports again)."
)

items = record_items()
with st.expander("Import a record (JSON)"):
    uploaded = st.file_uploader("Decision record JSON", type=["json"], key="record_upload")
    if uploaded is not None and st.button("Add its items", key="record_import"):
        try:
            set_record_items(items + read_record_json(uploaded.getvalue()))
            st.rerun()
        except InputError as exc:
            st.error(md(exc))

if not items:
    st.info(
        "The record is empty. Open a page (for example **Operating point**), then press **Add to decision record**."
    )
    go_to("operating-point")
    st.stop()


def move(index: int, step: int) -> None:
    current = record_items()
    j = index + step
    current[index], current[j] = current[j], current[index]


def remove(index: int) -> None:
    del record_items()[index]


for i, item in enumerate(items):
    with st.container(border=True):
        head = st.columns([6, 1, 1, 1])
        head[0].markdown(f"**{i + 1}. {md(item.title)}** · {md(item.kind)}")
        head[1].button("↑", key=f"up_{i}", on_click=move, args=(i, -1), disabled=i == 0, help="Move up")
        head[2].button("↓", key=f"down_{i}", on_click=move, args=(i, 1), disabled=i == len(items) - 1, help="Move down")
        head[3].button("Remove", key=f"remove_{i}", on_click=remove, args=(i,))
        st.markdown(md(item.sentence))
        if item.details:
            st.caption(md(item.details))
        note = st.text_area(
            "Note",
            value=item.note,
            key=f"note_{i}_{id(item)}",
            height=68,
            placeholder="What was decided, by whom, and why",
        )
        if note != item.note:
            items[i] = item.annotated(note)
        p = item.provenance if isinstance(item.provenance, dict) else {}
        sha = str(p.get("data_sha256") or "")
        st.caption(
            md(
                f"Data SHA-256 {sha[:12] + '…' if sha else 'not recorded'} · engine "
                f"{p.get('engine_version') or 'not recorded'} · {p.get('time') or 'time not recorded'}"
            )
        )
        link = safe_href(p.get("link"))
        if link:  # an http(s) address or one of our /page paths (imports are checked the same way)
            st.link_button("Reopen this view", link, key=f"reopen_{i}_{id(item)}")

st.subheader("Export")
title = st.text_input("Title", "Decision record", key="record_title")
links = [str(i.provenance.get("link") or "") for i in items if isinstance(i.provenance, dict)]
if not public_url() and any("//localhost" in link or "//127.0.0.1" in link for link in links):
    st.caption(
        f"The links that reopen a view point at this computer (localhost): colleagues cannot open them. Start the "
        f"studio with {PUBLIC_URL_ENV} set to the address colleagues use, and every exported link starts with it."
    )
st.caption(
    "The PDF carries every table as a CSV file with every digit (in your PDF viewer's attachments); the HTML "
    "links them, the JSON holds them."
)
e = st.columns(3)


def exports(title: str) -> tuple[bytes, bytes]:
    """HTML and JSON of the record, built again only when an item, a note or the title changed."""
    key = (title, tuple((id(item), item.note) for item in items))  # items are frozen: a change is a new object
    cached = st.session_state.get("_record_exports")
    if cached is None or cached[0] != key:
        cached = (key, record_html(items, title).encode(), record_json(items).encode())
        st.session_state["_record_exports"] = cached
    return cached[1], cached[2]


html_bytes, json_bytes = exports(title)
e[0].download_button("Download HTML", html_bytes, file_name="decision_record.html", mime="text/html", key="record_html")
e[1].download_button(
    "Download JSON", json_bytes, file_name="decision_record.json", mime="application/json", key="record_json"
)
record_key = json_bytes
if e[2].button("Prepare PDF", key="record_pdf_build"):
    with st.spinner("Printing the record with headless Chromium"):
        try:
            st.session_state["_record_pdf"] = (record_key, record_pdf(items, title))
        except InputError as exc:
            st.error(md(exc))
stored = st.session_state.get("_record_pdf")
if stored and stored[0] == record_key:  # a PDF of exactly these items
    e[2].download_button(
        "Download PDF", stored[1], file_name="decision_record.pdf", mime="application/pdf", key="record_pdf"
    )
