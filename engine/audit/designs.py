"""An audit's design record (``plan.json`` beside ``plan.csv``): what a plan was made for, and the checks that hold a
reviewed plan and rated data to it before anything is estimated.

The record names the population (its fingerprint and score column), the review line, the seed, the strata and the
documents at or above the line, and carries the SHA-256 of the plan's rows without labels
(:func:`plan_rows_sha256`), the key a workspace stores it under.
"""

from ._design_records import (
    check_design,
    check_rated,
    design_json,
    design_path,
    design_record,
    load_design,
    plan_rows_sha256,
)

__all__ = [
    "design_record",
    "design_json",
    "design_path",
    "load_design",
    "check_design",
    "check_rated",
    "plan_rows_sha256",
]
