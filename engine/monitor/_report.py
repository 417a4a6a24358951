"""The monitoring decision in one sentence for the decision record, and its money."""

from __future__ import annotations

import math

from ..pn._economics import target_text
from ._monitoring import Monitoring

__all__ = ["monitoring_sentence", "monitoring_headline"]


def monitoring_sentence(result: Monitoring, classifier: str, currency: str = "") -> str:
    """What the deployed threshold did over the periods, whether it still meets the target, and (with money) its value.

    Parameters
    ----------
    result : Monitoring
    classifier : str
        The score column's name.
    currency : str, optional
        Prefix of amounts.

    Returns
    -------
    str
        Plain text (user strings are not markup).
    """
    periods = [p for p in result.periods if p.rated]
    n = len(result.periods)
    flagged = sum(p.tp + p.fp for p in result.periods)
    days = sum(p.days for p in result.periods)
    head = (
        f"{classifier} ≥ {result.threshold:.4g} was monitored over {n} {result.period}s "
        f"({result.periods[0].start} to {result.periods[-1].end}), flagging {flagged / days:,.1f} rated documents "
        f"a day at a target marginal precision of {target_text(result.target, percent=True)}"
    )
    if result.economics is not None:
        e = result.economics
        head += (
            f" (break-even for a review cost of {currency}{e.review_cost:,.4g} and {currency}"
            f"{e.value_per_positive:,.4g} per positive"
        )
        head += (
            f" plus {currency}{e.cost_per_false_positive:,.4g} per false positive)"
            if e.cost_per_false_positive
            else ")"
        )
    first = result.first_alert
    if first is None:
        tail = (
            f". No alert: the evidence never said the threshold stopped meeting the target (false alarms at most "
            f"{1 - result.level:.0%} however many periods are checked)."
        )
    else:
        tail = f". Alert from the {result.period} of {first.start}: {first.reason}"
    money = result.money()
    if money:
        net = sum(m.net_value for m in money)
        last = periods[-1] if periods else None
        tail += f" Net value {'-' if net < 0 else ''}{currency}{abs(net):,.0f} ({currency}{net / days:,.0f} a day)"
        if last is not None and math.isfinite(last.marginal_precision.estimate):
            value = result.economics.document_value(last.marginal_precision.estimate)  # type: ignore[union-attr]
            tail += (
                f"; in the last {result.period} the last document reviewed was worth "
                f"{'-' if value < 0 else ''}{currency}{abs(value):,.2f}"
            )
        tail += "."
    return head + tail


def monitoring_headline(result: Monitoring, classifier: str, currency: str = "") -> str:
    """The monitoring's decision in one sentence: whether the deployed threshold still meets its target.

    Parameters
    ----------
    result : Monitoring
    classifier : str
        The score column's name.
    currency : str, optional
        Prefix of amounts (the net value, with money).

    Returns
    -------
    str
        One sentence; :func:`monitoring_sentence` gives the details.
    """
    n, period = len(result.periods), result.period
    rule = f"{classifier} ≥ {result.threshold:.4g}"
    target = f"the target marginal precision {result.target:.1%}"
    first = result.first_alert
    if first is None:
        text = f"{rule} met {target} in all {n} {period}s monitored: no alert"
    else:
        side = (
            "too low" if "too low" in (first.reason or "") else "too high" if "too high" in (first.reason or "") else ""
        )
        text = f"{rule} stopped meeting {target} from the {period} of {first.start} ({n} {period}s monitored)"
        text += f": the threshold is {side}" if side else ""
    money = result.money()
    if money:
        net = sum(m.net_value for m in money)
        text += f"; net value {'-' if net < 0 else ''}{currency}{abs(net):,.0f} over the {n} {period}s"
    return text + "."
