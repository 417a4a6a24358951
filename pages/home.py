"""Home: what each page answers, which input it needs, and a first path through the studio."""

import streamlit as st

from engine.pages import PAGES
from views.navigation import routed

CARDS = [p for p in PAGES if p.url_path != "home"]  # every other page, in navigation order


def page_cards() -> None:
    """One card per page, three to a row: its question, the input it needs, a link."""
    for start in range(0, len(CARDS), 3):
        for column, card in zip(st.columns(3), CARDS[start : start + 3]):
            with column.container(border=True):
                st.markdown(f"#### {card.title}")
                st.markdown(card.question)
                st.caption(f"Needs: {card.needs}")
                st.page_link(card.script, label=f"Open {card.title}", icon=card.icon)


routed()  # a page Streamlit ran without app.py runs again through it (views.navigation.routed)
st.title("Operating Point Studio")
st.markdown(
    "Choose and defend the operating point of rare-event classifiers when only the **predicted positives** "
    "were rated: the **PN curve** (rated positives against rated negatives as the threshold falls) replaces the "
    "ROC curve, and the **target marginal precision** says how many false positives one more true positive may "
    "cost."
)

page_cards()

st.subheader("First time here?")
st.markdown(
    "1. **Operating point** opens on the shipped synthetic sample: move the target slider and read the threshold.\n"
    "2. Press **Add to decision record** under the sweep.\n"
    "3. Open **Decision record**, write a note, and download the HTML or PDF.\n"
    "4. Bring your own data on the **Data** page: every page says which input it uses."
)
with st.expander("Definitions"):
    st.markdown(
        "- **Marginal precision** *m* at a point: dTP / (dTP + dFP) of the documents added by lowering the "
        "threshold there.\n"
        "- **Slope** of the PN curve: λ = dTP / dFP = *m* / (1 − *m*).\n"
        "- **False positives paid per extra true positive**: *c* = (1 − *m*) / *m* = 1 / λ.\n"
        "- On the upper concave hull of the PN curve the marginal precision never increases as the threshold "
        "falls; it equals the isotonic (PAV) fit of label on score.\n"
        "- The **operating point** for a target *m* maximises TP − λ·FP with λ = *m* / (1 − *m*); ties go to "
        "the highest threshold."
    )
