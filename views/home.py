"""Home: what the studio does, and where to go."""

import streamlit as st

st.title("Operating Point Studio")
st.markdown(
    "Choose and defend the operating point of rare-event classifiers when only the **predicted positives** "
    "were rated.  \n"
    "The **PN curve** (rated positives against rated negatives as the threshold falls) replaces the ROC curve; "
    "the **target marginal precision** says how many false positives one more true positive may cost.  \n"
    "With two or more classifiers, **graph and analytic threshold paths** pick the joint thresholds."
)
c1, c2, c3, c4, c5, c6 = st.columns(6)
with c1:
    st.page_link("views/data.py", label="Data: upload rated data or pick a sample", icon=":material/upload_file:")
with c2:
    st.page_link("views/operating_point.py", label="Operating point: one classifier", icon=":material/tune:")
with c3:
    st.page_link("views/ensemble_paths.py", label="Ensemble paths: 2+ classifiers", icon=":material/timeline:")
with c4:
    st.page_link("views/batch_decisions.py", label="Batch decisions: optimal top-k for set metrics",
                 icon=":material/checklist:")
with c5:
    st.page_link("views/early_exit.py", label="Early exit: faster ensembles (QWYC)", icon=":material/speed:")
with c6:
    st.page_link("views/constraints.py", label="Constrained training: fairness, churn, coverage",
                 icon=":material/balance:")
with st.expander("Definitions"):
    st.markdown(
        "- **Marginal precision** *m* at a point: dTP / (dTP + dFP) of the documents added by lowering the "
        "threshold there.\n"
        "- **Slope** of the PN curve: dTP / dFP = *m* / (1 − *m*).\n"
        "- **False positives paid per extra true positive**: *c* = (1 − *m*) / *m*.\n"
        "- On the upper concave hull of the PN curve the marginal precision never increases as the threshold "
        "falls; it equals the isotonic (PAV) fit of label on score.\n"
        "- The **operating point** for a target *m* maximises TP − FP·*m*/(1 − *m*) (equivalently "
        "*c*·TP − FP); ties go to the highest threshold."
    )
