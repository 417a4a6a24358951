"""Home: what each page answers, which input it needs, and a first path through the studio."""

import streamlit as st

CARDS = [
    ("views/data.py", "Data", ":material/upload_file:",
     "What is in my file, and is it valid?", "Any input: upload a file or pick a shipped sample."),
    ("views/operating_point.py", "Operating point", ":material/tune:",
     "Which threshold makes one more true positive cost at most c false positives — and how do I spend "
     "N reviews across segments?", "Rated data (scores + raters' verdicts)."),
    ("views/ensemble_paths.py", "Ensemble paths", ":material/timeline:",
     "Which joint thresholds for 2+ classifiers combined with OR / AND?", "Rated data with 2+ score columns, or "
     "aggregated counts."),
    ("views/batch_decisions.py", "Batch decisions", ":material/checklist:",
     "How many items of each batch to flag so F1, Jaccard … is best in expectation?", "Probability batches."),
    ("views/early_exit.py", "Early exit (QWYC)", ":material/speed:",
     "How few trees can my boosted model evaluate without changing its decisions?", "A model file + a feature "
     "table, or a score matrix."),
    ("views/constraints.py", "Constrained training", ":material/balance:",
     "What does a fair (or low-churn) model cost in error?", "A training table with a protected group."),
    ("views/record.py", "Decision record", ":material/description:",
     "What did we decide today, and why?", "Items added from the other pages."),
]

st.title("Operating Point Studio")
st.markdown(
    "Choose and defend the operating point of rare-event classifiers when only the **predicted positives** "
    "were rated: the **PN curve** (rated positives against rated negatives as the threshold falls) replaces the "
    "ROC curve, and the **target marginal precision** says how many false positives one more true positive may "
    "cost.")

for start in range(0, len(CARDS), 3):
    columns = st.columns(3)
    for column, (page, title, icon, question, needs) in zip(columns, CARDS[start:start + 3]):
        with column.container(border=True):
            st.markdown(f"#### {title}")
            st.markdown(question)
            st.caption(f"Needs: {needs}")
            st.page_link(page, label=f"Open {title}", icon=icon)

st.subheader("First time here?")
st.markdown(
    "1. **Operating point** opens on the shipped synthetic sample: move the target slider and read the threshold.\n"
    "2. Press **Add to decision record** under the sweep.\n"
    "3. Open **Decision record**, write a note, and download the HTML or PDF.\n"
    "4. Bring your own data on the **Data** page: every page says which input it uses.")
with st.expander("Definitions"):
    st.markdown(
        "- **Marginal precision** *m* at a point: dTP / (dTP + dFP) of the documents added by lowering the "
        "threshold there.\n"
        "- **Slope** of the PN curve: λ = dTP / dFP = *m* / (1 − *m*).\n"
        "- **False positives paid per extra true positive**: *c* = (1 − *m*) / *m* = 1 / λ.\n"
        "- On the upper concave hull of the PN curve the marginal precision never increases as the threshold "
        "falls; it equals the isotonic (PAV) fit of label on score.\n"
        "- The **operating point** for a target *m* maximises TP − λ·FP with λ = *m* / (1 − *m*); ties go to "
        "the highest threshold.")
