"""The target marginal precision derived from money, and an operating point stated in money.

A reviewer's time costs ``C`` per document reviewed, a caught positive is worth ``V``,
and a false positive may cost ``F`` beyond its review (an annoyed customer, a wrongly
blocked account). Flag a document while its expected value exceeds its cost. A
document whose probability of being positive is ``p`` is worth flagging iff

    p·V − C − (1 − p)·F > 0   ⇔   p·(V + F) > C + F   ⇔   p > m = (C + F) / (V + F).

Lowering the threshold adds documents whose share of positives is the marginal
precision, so the operating point is the one for the **break-even marginal precision**
``m = (C + F) / (V + F)``. The same point maximises the net value: with TP and FP flagged,

    net = V·TP − C·(TP + FP) − F·FP = (V − C)·(TP − λ·FP),   λ = (C + F) / (V − C) = m / (1 − m),

a positive multiple of the objective ``TP − λ·FP`` of Robles, Zaidouni, Mavromoustaki &
Refael (AAAI-MAKE 2020), so every threshold ranks the same under both (this is why the
money options give exactly the operating point of the equivalent target). ``V ≤ C``
means no document repays its review (flag nothing); ``C + F = 0`` means every document
does (flag everything): neither is a target, both are refused with the reason.

Amounts are finite numbers from 0 to :data:`MAX_AMOUNT` (a page's link or a script can send
anything: ``1e308`` would overflow the break-even to NaN, ``V = 1e308`` with ``C = 1e-300``
underflow it to 0); the break-even must land strictly inside (0, 1), and is written with as
many digits as it takes not to read as 0 or 1 (:func:`target_text`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .._arguments import number
from ..errors import InputError

__all__ = ["Economics", "target_from_money", "MoneyStatement", "money_statement", "target_text", "MAX_AMOUNT"]

#: largest amount of money accepted (10^15: totals over 10^9 documents stay far from overflow)
MAX_AMOUNT = 1e15


def _amount(value, name: str) -> float:
    return number(value, name, low=0, high=MAX_AMOUNT)


def _share(marginal_precision) -> float:
    """A marginal precision in [0, 1], or NaN (unknown) kept as it is."""
    if isinstance(marginal_precision, float) and math.isnan(marginal_precision):
        return math.nan
    return number(marginal_precision, "marginal precision", low=0, high=1)


def _figure(x: float) -> str:
    """An amount as typed: ``3``, ``0.5``, ``9.9999999`` (never rounded to another number)."""
    text = f"{x:.6g}"
    return text if float(text) == x else repr(float(x))


def target_text(m: float, percent: bool = False) -> str:
    """A marginal precision in (0, 1) written so that it never reads as 0 or 1 (``0.99999999``, not ``1``).

    Parameters
    ----------
    m : float
        The share.
    percent : bool, optional
        As a percentage (``30.0%``) instead of a decimal (``0.3``).

    Returns
    -------
    str
        4 significant digits (one decimal of a percentage), more when those round to 0 or 1.
    """
    m = float(m)
    if not math.isfinite(m):
        return "—"
    for digits in range(4, 18):
        text = f"{m * 100:.{digits - 3}f}%" if percent else f"{m:.{digits}g}"
        value = float(text.rstrip("%")) / (100 if percent else 1)
        if not (0 < m < 1) or 0 < value < 1:
            return text
    return repr(m)


@dataclass(frozen=True)
class Economics:
    """What a review costs and what a caught positive is worth (any one currency).

    Attributes
    ----------
    review_cost : float
        C: cost of reviewing one flagged document (>= 0).
    value_per_positive : float
        V: value of one caught positive (> C).
    cost_per_false_positive : float
        F: cost of a false positive beyond its review (>= 0).
    """

    review_cost: float
    value_per_positive: float
    cost_per_false_positive: float = 0.0

    def __post_init__(self):
        c = _amount(self.review_cost, "review cost")
        v = _amount(self.value_per_positive, "value per positive")
        f = _amount(self.cost_per_false_positive, "cost per false positive")
        if v <= c:
            raise InputError(
                f"value per positive ({v:g}) must exceed the review cost ({c:g}): otherwise no document "
                "repays its review and the best threshold flags nothing"
            )
        if c + f <= 0:
            raise InputError(
                "review cost plus cost per false positive is 0: every document repays its review "
                "and the best threshold flags everything; give a review cost > 0"
            )
        if not 0 < (c + f) / (v + f) < 1:
            raise InputError(
                f"a review cost of {_figure(c)} against {_figure(v)} per positive gives a break-even of "
                f"{(c + f) / (v + f)!r}, which no threshold can meet; give amounts of comparable size in one unit "
                "(e.g. both in thousands)"
            )
        object.__setattr__(self, "review_cost", c)
        object.__setattr__(self, "value_per_positive", v)
        object.__setattr__(self, "cost_per_false_positive", f)

    @property
    def target(self) -> float:
        """The break-even marginal precision m = (C + F) / (V + F)."""
        return (self.review_cost + self.cost_per_false_positive) / (
            self.value_per_positive + self.cost_per_false_positive
        )

    def formula(self, currency: str = "") -> str:
        """``m = (C + F) / (V + F) = (3 + 0) / (10 + 0) = 0.3``: the break-even with the amounts as typed.

        Parameters
        ----------
        currency : str, optional
            Prefix of amounts.

        Returns
        -------
        str
        """
        c, v, f = (
            currency + _figure(x) for x in (self.review_cost, self.value_per_positive, self.cost_per_false_positive)
        )
        return f"m = (C + F) / (V + F) = ({c} + {f}) / ({v} + {f}) = {target_text(self.target)}"

    def document_value(self, marginal_precision: float) -> float:
        """Expected net value of flagging one document that is positive with probability ``marginal_precision``.

        Parameters
        ----------
        marginal_precision : float
            p, the probability that the document is positive.

        Returns
        -------
        float
            ``p·V − C − (1 − p)·F`` (NaN for a NaN p).
        """
        p = _share(marginal_precision)
        return p * self.value_per_positive - self.review_cost - (1.0 - p) * self.cost_per_false_positive


def target_from_money(review_cost: float, value_per_positive: float, cost_per_false_positive: float = 0.0) -> float:
    """The break-even target marginal precision ``m = (C + F) / (V + F)``.

    Parameters
    ----------
    review_cost : float
        C: cost of reviewing one flagged document (>= 0).
    value_per_positive : float
        V: value of one caught positive (must exceed C).
    cost_per_false_positive : float, optional
        F: cost of a false positive beyond its review (>= 0; default 0).

    Returns
    -------
    float
        m in (0, 1): the operating point for m maximises the net value ``V·TP − C·(TP + FP) − F·FP``.

    Raises
    ------
    InputError
        A negative or non-finite amount, ``V <= C`` (nothing repays its review) or ``C + F = 0``.

    References
    ----------
    .. [1] Robles, E., Zaidouni, F., Mavromoustaki, A. & Refael, P. (2020). *Threshold Optimization in
       Multiple Binary Classifiers for Extreme Rare Events using Predicted Positive Data.* AAAI-MAKE 2020:
       the operating point maximises TP − λ·FP; the net value is (V − C)·(TP − λ·FP) with λ = m / (1 − m).
    """
    return Economics(review_cost, value_per_positive, cost_per_false_positive).target


@dataclass(frozen=True)
class MoneyStatement:
    """An operating point (or one period of it) in money.

    Attributes
    ----------
    economics : Economics
        The costs and values used.
    tp, fp : float
        True and false positives flagged.
    days : float or None
        Days the counts cover (None: per-day figures are NaN).
    marginal_precision : float
        Marginal precision of the last documents flagged (NaN when unknown).
    """

    economics: Economics
    tp: float
    fp: float
    days: float | None = None
    marginal_precision: float = math.nan

    @property
    def value_caught(self) -> float:
        """V·TP."""
        return self.economics.value_per_positive * self.tp

    @property
    def review_cost(self) -> float:
        """C·(TP + FP)."""
        return self.economics.review_cost * (self.tp + self.fp)

    @property
    def false_positive_cost(self) -> float:
        """F·FP."""
        return self.economics.cost_per_false_positive * self.fp

    @property
    def net_value(self) -> float:
        """Value caught minus review and false-positive costs."""
        return self.value_caught - self.review_cost - self.false_positive_cost

    @property
    def net_per_day(self) -> float:
        return self.net_value / self.days if self.days else math.nan

    @property
    def last_document_value(self) -> float:
        """Expected net value of the last document reviewed (negative: the threshold is too low)."""
        return self.economics.document_value(self.marginal_precision)

    def as_dict(self) -> dict:
        """The figures by name (for JSON and tables)."""
        return {
            "value_caught": self.value_caught,
            "review_cost": self.review_cost,
            "false_positive_cost": self.false_positive_cost,
            "net_value": self.net_value,
            "net_per_day": self.net_per_day,
            "last_document_value": self.last_document_value,
        }

    def sentence(self, currency: str = "") -> str:
        """The statement in one sentence a stakeholder reads.

        Parameters
        ----------
        currency : str, optional
            Prefix of amounts (``"$"``, ``"EUR "``); none by default.

        Returns
        -------
        str
            Value caught, costs, net value (per day when ``days`` is known) and the last document's value.
        """

        def money(x: float, decimals: int = 0) -> str:
            return "–" if not math.isfinite(x) else f"{'-' if x < 0 else ''}{currency}{abs(x):,.{decimals}f}"

        text = (
            f"{self.tp:,.0f} true positives caught are worth {money(self.value_caught)}; reviewing "
            f"{self.tp + self.fp:,.0f} documents costs {money(self.review_cost)}"
        )
        if self.economics.cost_per_false_positive:
            text += f" and the {self.fp:,.0f} false positives {money(self.false_positive_cost)} more"
        text += f": net {money(self.net_value)}"
        if self.days:
            text += f" ({money(self.net_per_day)} per day over {self.days:,.0f} days)"
        if math.isfinite(self.last_document_value):
            text += (
                f". The last document reviewed is worth {money(self.last_document_value, 2)} "
                f"(marginal precision {self.marginal_precision:.1%})"
            )
        return text + "."


def money_statement(
    tp: float, fp: float, economics: Economics, *, days: float | None = None, marginal_precision: float = math.nan
) -> MoneyStatement:
    """Value caught, review cost, net value (per day) and the last document's value of TP and FP flagged.

    Parameters
    ----------
    tp, fp : float
        True and false positives flagged.
    economics : Economics
        Costs and values.
    days : float, optional
        Days the counts cover, for per-day figures.
    marginal_precision : float, optional
        Marginal precision of the last documents flagged, for the last document's value.

    Returns
    -------
    MoneyStatement

    Raises
    ------
    InputError
        Negative or non-finite counts, or days <= 0.
    """
    tp = number(tp, "true positives", low=0)
    fp = number(fp, "false positives", low=0)
    if not isinstance(economics, Economics):
        raise InputError(f"economics must be an Economics (review cost and value per positive), got {economics!r}")
    days = None if days is None else number(days, "days", low=0, low_open=True)
    return MoneyStatement(economics, tp, fp, days, _share(marginal_precision))
