"""Reports for single-classifier operating points and joint thresholds (Robles et al., AAAI-MAKE 2020)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ..presentation import format_value, present_table
from ..reporting import ReportSection, render_html, to_json
from ._economics import money_statement
from ._operating_point import what_if_table

__all__ = [
    "operating_point_sentence",
    "joint_thresholds_sentence",
    "operating_point_report",
    "ensemble_report",
    "DEFINITIONS",
]


def _fmt_interval(lo: float, hi: float) -> str:
    return f"[{lo:.6g}, {hi:.6g}]"


def operating_point_sentence(classifier: str, op, ci=None) -> str:
    """The decision and its consequence in one sentence a stakeholder reads.

    Parameters
    ----------
    classifier : str
        The classifier's name.
    op : OperatingPoint
        The operating point (Robles et al. 2020: the hull vertex where marginal precision meets the target).
    ci : BootstrapPoint, optional
        Its bootstrap interval; the sentence then states the threshold's interval.

    Returns
    -------
    str
    """
    threshold = float(np.ravel(op.threshold)[0])
    if not np.isfinite(threshold):
        return (
            f"Flag nothing with {classifier}: at a target marginal precision of {op.target:.0%} no threshold "
            "finds true positives cheaply enough."
        )
    sentence = (
        f"Flag documents with {classifier} ≥ {threshold:.4g}: {op.tp:,.0f} true positives and {op.fp:,.0f} "
        f"false positives among the rated documents (precision {op.precision:.1%}); one more true positive "
        f"would cost {op.cost:.2g} false positives."
    )
    if ci is not None:
        lo, hi = ci.threshold_ci
        sentence += f" With {ci.level:.0%} confidence the threshold lies between {lo:.4g} and {hi:.4g}."
    return sentence


def joint_thresholds_sentence(names, points: dict, best, *, rule: str = "", chosen: str | None = None) -> str:
    """The decision first (the chosen path's pair of thresholds), then the other paths and the best grid point.

    Parameters
    ----------
    names : sequence of str
        The classifiers, in the order of the thresholds.
    points : dict of str to OperatingPoint
        Each path's operating point (Robles et al. 2020, Algorithm 1), by method.
    best : OperatingPoint
        The best single grid point at the same target.
    rule : str, optional
        How the classifiers are combined (``"or"``: any score at or above its threshold flags, ``"and"``:
        every score); empty when not known.
    chosen : str, optional
        The method whose thresholds are the decision; by default the graph path when there is one
        (Algorithm 1), else the first method.

    Returns
    -------
    str
        ``"Decision: flag a document when a ≥ 0.4 or b ≥ 0.7 (the graph path's pair at this target): ...
        For comparison: ..."``.
    """
    if not points:
        return (
            f"No path reaches this target; the best single grid point finds {best.tp:,.0f} true and "
            f"{best.fp:,.0f} false positives."
        )
    chosen = chosen if chosen in points else ("graph" if "graph" in points else next(iter(points)))
    joiner = {"or": " or ", "and": " and "}.get(str(rule).lower(), ", ")

    def pair(op) -> str:
        return joiner.join(f"{n} ≥ {t:.4g}" for n, t in zip(names, np.ravel(op.threshold)))

    op = points[chosen]
    sentence = (
        f"Decision: flag a document when {pair(op)} (the {chosen} path's pair at this target): "
        f"{op.tp:,.0f} true and {op.fp:,.0f} false positives."
    )
    others = [
        f"the {method} path flags {pair(p)} ({p.tp:,.0f} true and {p.fp:,.0f} false positives)"
        for method, p in points.items()
        if method != chosen
    ]
    others.append(
        f"the best single grid point finds {best.tp:,.0f} true and {best.fp:,.0f} false positives "
        "(chosen on these very counts, so optimistic for new data)"
    )
    return sentence + " For comparison: " + "; ".join(others) + "."


#: the sweep table's columns in words, with units
def operating_point_report(
    data,
    classifier: str,
    op,
    settings: dict,
    *,
    ci=None,
    what_if=None,
    sweep: pd.DataFrame | None = None,
    figures: Sequence[tuple[str, go.Figure]] = (),
    economics=None,
    currency: str = "",
) -> tuple[str, str]:
    """(HTML, JSON) for a single-classifier operating point.

    ``op`` is the chosen :class:`~engine.pn.OperatingPoint`, ``ci`` its
    :class:`~engine.pn._bootstrap.BootstrapPoint` (or None), ``what_if`` a second operating point.

    Parameters
    ----------
    data : RatedData
        The rated data (its summary and fingerprint are recorded).
    classifier : str
        The classifier's name.
    op : OperatingPoint
        The chosen operating point.
    settings : dict
        Every setting of the view (target, bootstrap replicates, ...), recorded as given.
    ci : BootstrapPoint, optional
        The operating point's bootstrap intervals.
    what_if : OperatingPoint, optional
        A second operating point, compared with the first.
    sweep : pandas.DataFrame, optional
        The sweep of target marginal precisions (:func:`~engine.pn.display.sweep_table`).
    figures : sequence of (str, plotly.graph_objects.Figure)
        Figures embedded with their captions.
    economics : Economics, optional
        The money the target was derived from: the decision is then also stated in money (JSON ``"money"``:
        the amounts, the break-even target, value caught, costs, net value, the last document's value).
    currency : str, optional
        Prefix of amounts in the sentence.

    Returns
    -------
    (str, str)
        The HTML report (opens offline) and the JSON record.
    """
    summary = data.summary()
    point = op.as_dict()
    record = {"dataset": summary, "settings": {"classifier": classifier, **settings}, "operating_point": point}
    cards = {
        "threshold (flag score ≥)": format_value(float(np.ravel(op.threshold)[0]), "threshold"),
        "true positives": format_value(op.tp, "count" if float(op.tp).is_integer() else "estimate"),
        "false positives": format_value(op.fp, "count" if float(op.fp).is_integer() else "estimate"),
        "precision": format_value(op.precision, "share"),
        "marginal precision just above": format_value(op.mp_above, "share"),
        "marginal precision just below": format_value(op.mp_below, "share"),
        "false positives paid per extra true positive": format_value(op.cost, "number"),
    }
    table = pd.DataFrame({"quantity": list(cards), "value": list(cards.values())})
    if ci is not None:
        intervals = {"threshold": ci.threshold_ci, "tp": ci.tp_ci, "fp": ci.fp_ci}
        record["confidence_intervals"] = {
            "level": ci.level,
            "replicates": int(ci.thresholds.size),
            **{k: list(v) for k, v in intervals.items()},
        }
        table["bootstrap interval"] = [
            _fmt_interval(*ci.threshold_ci),
            _fmt_interval(*ci.tp_ci),
            _fmt_interval(*ci.fp_ci),
            "",
            "",
            "",
            "",
        ]
    flags_nothing = not np.all(np.isfinite(np.ravel(op.threshold)))
    decision = operating_point_sentence(classifier, op, ci)
    if economics is not None:
        statement = money_statement(op.tp, op.fp, economics, marginal_precision=op.mp_above)
        record["money"] = {
            "review_cost": economics.review_cost,
            "value_per_positive": economics.value_per_positive,
            "cost_per_false_positive": economics.cost_per_false_positive,
            "target": economics.target,
            **statement.as_dict(),
        }
        decision += (
            f" The target is the break-even marginal precision (C + F) / (V + F) of a review cost of "
            f"{currency}{economics.review_cost:g}, {currency}{economics.value_per_positive:g} per caught "
            f"positive and {currency}{economics.cost_per_false_positive:g} per false positive: "
            + statement.sentence(currency)
        )
    sections = [
        ReportSection("Decision", decision),
        ReportSection(
            "Chosen operating point",
            present_table(table),
            "Threshold +inf means: flag nothing (no threshold beats the target)." if flags_nothing else "",
        ),
    ]
    if what_if is not None:
        record["what_if"] = what_if.as_dict()
        sections.append(
            ReportSection("What-if: a second target", present_table(what_if_table(op, what_if), row_kinds="quantity"))
        )
    sections += [ReportSection(title, fig) for title, fig in figures]
    if sweep is not None:
        record["sweep"] = sweep.to_dict(orient="records")
        readable = sweep.drop_duplicates(subset=["threshold", "tp", "fp"])  # targets on one threshold: one row
        sections.append(
            ReportSection(
                "Other targets",
                present_table(readable, compact=True),
                f"{len(sweep) - len(readable)} targets giving the same threshold as a row above are left out."
                if len(readable) < len(sweep)
                else "",
            )
        )
        sections.append(
            ReportSection(
                "Appendix: the full sweep (every target; every digit in the JSON record)",
                present_table(sweep, precise=True, compact=True),
            )
        )
    sections.append(ReportSection("Appendix: definitions", DEFINITIONS))
    meta = {
        "data set": summary["name"],
        "fingerprint (SHA-256)": summary["fingerprint_sha256"],
        "rated rows": summary["rated_rows"],
        "unrated rows": summary["unrated_rows"],
        "classifier": classifier,
        "target marginal precision": op.target,
        **{k: v for k, v in settings.items() if k != "target"},
    }
    html_text = render_html("Operating point report", meta, sections)
    return html_text, to_json("operating_point", record)


def ensemble_report(
    source: dict,
    settings: dict,
    comparison: pd.DataFrame,
    points: dict,
    figures: Sequence[tuple[str, go.Figure]] = (),
    bootstrap_summary: pd.DataFrame | None = None,
) -> tuple[str, str]:
    """(HTML, JSON) for joint thresholds of 2+ classifiers: the path comparison and each method's point.

    ``source`` identifies the input: :meth:`~engine.io._rated.RatedData.summary` of rated data, or the name and
    SHA-256 of an aggregated counts table.

    Parameters
    ----------
    source : dict
        What the grid was counted from (recorded as given).
    settings : dict
        Every setting of the view (classifiers, rule, grid size, family, target, ...).
    comparison : pandas.DataFrame
        The path comparison (:func:`~engine.pn.compare_paths`).
    points : dict of str to OperatingPoint
        Each method's operating point, the best grid point under ``"best grid point"``.
    figures : sequence of (str, plotly.graph_objects.Figure)
        Figures embedded with their captions.
    bootstrap_summary : pandas.DataFrame, optional
        Quantiles of the graph path over bootstrap replicates.

    Returns
    -------
    (str, str)
        The HTML report (opens offline) and the JSON record.
    """
    summary = dict(source)
    record = {
        "dataset": summary,
        "settings": settings,
        "operating_points": {k: v.as_dict() for k, v in points.items()},
        "comparison": comparison.to_dict(orient="records"),
    }
    paths = {k: v for k, v in points.items() if k != "best grid point"}
    sections = []
    if "best grid point" in points and paths:
        names = settings.get("classifiers") or [
            f"t{j + 1}" for j in range(np.size(next(iter(paths.values())).threshold))
        ]
        sections.append(
            ReportSection(
                "Decision",
                joint_thresholds_sentence(names, paths, points["best grid point"], rule=settings.get("rule", "")),
            )
        )
    sections += [
        ReportSection(
            "Comparison of threshold paths",
            present_table(comparison, transpose_on="method"),
            "Area: trapezoid area under each path's PN curve; % of frontier: share of the area "
            "under the concave hull of all grid points (the most any chain of grid points can "
            "reach).",
        )
    ]
    if bootstrap_summary is not None:
        record["graph_path_bootstrap"] = bootstrap_summary.to_dict(orient="records")
        sections.append(
            ReportSection("Bootstrap spread of the graph path", present_table(bootstrap_summary, row_kinds="quantity"))
        )
    sections += [ReportSection(title, fig) for title, fig in figures]
    sections.append(ReportSection("Appendix: definitions", DEFINITIONS))
    meta = {
        "data set": summary["name"],
        "fingerprint (SHA-256)": summary["fingerprint_sha256"],
        **({"rated rows": summary["rated_rows"]} if "rated_rows" in summary else {}),
        **settings,
    }
    return render_html("Joint thresholds report", meta, sections), to_json("ensemble_paths", record)


DEFINITIONS = (
    "Marginal precision m at a point: dTP / (dTP + dFP) of the documents added by lowering the threshold there. "
    "Slope of the PN curve: λ = dTP/dFP = m / (1 − m). False positives paid per extra true positive: "
    "c = (1 − m) / m = 1 / λ. The operating point for a target m maximises TP − λ·FP with λ = m / (1 − m); "
    "ties go to the highest threshold. "
    "Method: Robles, Zaidouni, Mavromoustaki & Refael, Threshold Optimization in Multiple Binary Classifiers for "
    "Extreme Rare Events using Predicted Positive Data (AAAI-MAKE 2020)."
)
