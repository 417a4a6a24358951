"""Per-kind pieces of the Data page: load a shipped sample, map an upload's columns, show the validation report.

Each module handles one input kind (``engine.io.INPUT_KINDS``) and defines
``load_sample(key)``, ``mapping_form(raw, table, name, tag)`` (widgets; returns a
``SessionInput`` or ``None`` after showing what is wrong), ``restore(raw, name, mapping,
sample_key)`` (the same input read again from its bytes and its mapping's JSON, for a saved view:
no widgets, no session memo), ``summary(inp)`` (one line for the inputs table) and ``report(inp)``.
"""

from views.forms import (
    audit,
    batches,
    counts,
    dated,
    feature_table,
    model_file,
    population,
    rated,
    score_matrix,
    training,
)

FORMS = {
    "rated": rated,
    "dated": dated,
    "counts": counts,
    "batches": batches,
    "score_matrix": score_matrix,
    "model_file": model_file,
    "feature_table": feature_table,
    "training_table": training,
    "population": population,
    "audit": audit,
}
