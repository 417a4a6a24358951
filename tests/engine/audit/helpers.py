"""Design records for hand-made audits (tests only): what :func:`engine.audit.designs.design_record` writes for a real plan."""

from engine.audit._design_records import DESIGN_FORMAT, above_record
from engine.audit.designs import check_design, plan_rows_sha256


def design_for(audit, above_scores, *, seed=0, score_column="score", name="'population.csv'") -> dict:
    """The design record a plan drawing ``audit`` from a population with ``above_scores`` at or above its line has."""
    above = above_record(above_scores)
    return {
        "format": DESIGN_FORMAT,
        "version": 1,
        "population": {
            "name": name,
            "backend": "memory",
            "documents": int(audit.documents.sum()) + above["documents"],
            "fingerprint": {"kind": "columns", "sha256": "0" * 64},
            "id_column": "doc",
            "prior_column": None,
        },
        "score_column": score_column,
        "review_threshold": float(audit.uppers[-1]),
        "seed": seed,
        "allocation": "proportional",
        "spacing": "geometric",
        "level": 0.95,
        "strata": [
            {
                "stratum": h + 1,
                "lower": float(audit.lowers[h]),
                "upper": float(audit.uppers[h]),
                "documents": int(audit.documents[h]),
                "sample": int(audit.planned[h]),
            }
            for h in range(audit.documents.size)
        ],
        "above": above,
        "rows_sha256": plan_rows_sha256(audit),
    }


def with_design(audit, above_scores, **kwargs):
    """The audit carrying the design record :func:`design_for` makes for it."""
    return check_design(audit, design_for(audit, above_scores, **kwargs))
