"""Set losses on a whole batch, registered once in :data:`LOSSES` (F-beta, Jaccard, AM, G-mean, ... and
user-defined linear-fractional metrics).

Natarajan, Koyejo, Ravikumar & Dhillon, *Optimal Classification with
Multivariate Losses*, ICML 2016, Table 1. Every loss is ``1 - metric(TP, FP, FN,
TN)``, vectorised over count arrays. A rate or ratio whose denominator is 0
counts as perfect (metric 1, loss 0), so predicting nothing when nothing is
positive costs nothing.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError

__all__ = [
    "SetLoss",
    "LinearFractional",
    "LossChoice",
    "LOSSES",
    "LOSS_SPELLINGS",
    "F1_COEFFICIENTS",
    "get_loss",
    "fbeta",
    "linear_fractional",
]


def _ratio(num, den):
    """num / den with the convention 0 denominator -> 1 (perfect)."""
    num = np.asarray(num, dtype=float)
    den = np.asarray(den, dtype=float)
    safe = np.where(den == 0, 1.0, den)
    return np.where(den == 0, 1.0, num / safe)


@dataclass(frozen=True)
class LinearFractional:
    """Coefficients of ``metric = (c0 + c·(TP, FP, FN, TN)) / (d0 + d·(TP, FP, FN, TN))``.

    Attributes
    ----------
    numerator : tuple of 5 float
        ``(c0, c_TP, c_FP, c_FN, c_TN)``.
    denominator : tuple of 5 float
        ``(d0, d_TP, d_FP, d_FN, d_TN)``.
    """

    numerator: tuple[float, float, float, float, float]
    denominator: tuple[float, float, float, float, float]

    def metric(self, tp, fp, fn, tn):
        """The metric at given counts (1 where the denominator is 0).

        Parameters
        ----------
        tp, fp, fn, tn : float or numpy.ndarray
            Confusion counts (broadcast together).

        Returns
        -------
        numpy.ndarray of float
            numerator / denominator, elementwise.
        """
        c, d = self.numerator, self.denominator
        num = c[0] + c[1] * tp + c[2] * fp + c[3] * fn + c[4] * tn
        den = d[0] + d[1] * tp + d[2] * fp + d[3] * fn + d[4] * tn
        return _ratio(num, den)

    def affine_in_s1_s(self, n: int, k):
        """(A, B, C, D, E, F) with numerator A + B S1 + C S and denominator D + E S1 + F S for top-k.

        With TP = S1, FP = k − S1, FN = S − S1, TN = n − k − S + S1 (S1 positives among
        the top k, S positives in all) both parts are affine in (S1, S).

        Parameters
        ----------
        n : int
            Items in the batch.
        k : int or numpy.ndarray of int
            Items flagged (the top k).

        Returns
        -------
        tuple of 6
            ``(A, B, C)`` of the numerator and ``(D, E, F)`` of the denominator; A and D
            have the shape of ``k``, the others are floats.
        """

        def affine(c):
            return (c[0] + c[2] * k + c[4] * (n - k), c[1] - c[2] - c[3] + c[4], c[3] - c[4])

        return (*affine(self.numerator), *affine(self.denominator))


@dataclass(frozen=True)
class SetLoss:
    """A loss ``1 − metric(TP, FP, FN, TN)`` on a whole batch, vectorised over count arrays.

    Calling the loss, ``loss(tp, fp, fn, tn)``, returns ``1 − metric``.

    Attributes
    ----------
    name : str
        Display name (``"F1"``, ``"Jaccard"`` ...).
    formula : str
        The loss as a formula for people.
    reference : str
        Where the metric is defined.
    metric_fn : callable
        ``metric_fn(tp, fp, fn, tn)`` on float arrays; excluded from equality and hashing
        (the other fields determine it).
    fractional : LinearFractional or None
        Coefficients when the metric is linear-fractional (enables the O(n²) expected losses).
    kernel : str
        Key of the compiled pair kernel in :mod:`engine.setloss.kernels` (the :data:`LOSSES` key of a
        ``rates`` loss; ``""`` = none).
    """

    name: str
    formula: str
    reference: str
    # the metric is determined by the other fields, so it takes no part in equality or hashing:
    # two losses built from the same name compare and hash equal (memo keys hit across reruns)
    metric_fn: Callable = field(repr=False, compare=False)
    fractional: LinearFractional | None = None
    #: name of the compiled pair kernel in :mod:`engine.setloss.kernels` ("" = none)
    kernel: str = ""

    def metric(self, tp, fp, fn, tn) -> np.ndarray:
        """The metric (1 = perfect) at given counts.

        Parameters
        ----------
        tp, fp, fn, tn : float or array_like
            Confusion counts of the batch (broadcast together).

        Returns
        -------
        numpy.ndarray of float
            The metric, elementwise; a ratio with denominator 0 counts as 1.
        """
        return self.metric_fn(
            np.asarray(tp, float), np.asarray(fp, float), np.asarray(fn, float), np.asarray(tn, float)
        )

    def __call__(self, tp, fp, fn, tn) -> np.ndarray:
        return 1.0 - self.metric(tp, fp, fn, tn)


_CELLS = ("TP", "FP", "FN", "TN")


def _outside_unit_interval(num: tuple, den: tuple) -> str | None:
    """When ``num / den`` leaves [0, 1] on some confusion matrix (in words), or None when it never does.

    For counts ``x >= 0`` with ``n = sum(x) >= 1`` an affine ``f0 + f . x`` is >= 0 everywhere
    exactly when ``f0 + f_i >= 0`` (one item, in cell i) and ``f_i >= 0`` (cell i growing) for
    every cell; applied to the numerator and to denominator - numerator, this gives
    ``0 <= numerator <= denominator``: the metric is in [0, 1], and where the denominator is 0
    so is the numerator (0 / 0, which counts as 1).
    """
    for i, cell in enumerate(_CELLS, start=1):
        n1, d1 = num[0] + num[i], den[0] + den[i]
        one = f"for a batch of one item that is a {cell} ({cell} = 1, every other count 0)"
        if d1 == 0 and n1 != 0:
            return f"its denominator vanishes {one} while its numerator is {n1:g}"
        if n1 < 0 or n1 > d1:
            return f"it is {n1:g} / {d1:g} {one}"
        if num[i] < 0:
            return f"its numerator becomes negative as {cell} grows"
        if den[i] < num[i]:
            return (
                f"it exceeds 1 as {cell} grows (the denominator vanishes or turns negative while the numerator "
                "does not)"
                if den[i] < 0
                else f"it exceeds 1 as {cell} grows"
            )
    return None


def linear_fractional(numerator, denominator, name: str = "custom linear-fractional metric") -> SetLoss:
    """Build a loss from numeric coefficients (no user text is evaluated).

    The metric is the ratio of the two affine forms and the loss is ``1 − metric``. Only
    metrics that are a score in [0, 1] on every confusion matrix are accepted:
    ``0 <= numerator <= denominator`` for all counts TP, FP, FN, TN >= 0 of a non-empty
    batch, checked exactly on the coefficients (one item in each cell, and each cell
    growing). So the denominator vanishes only where the numerator does, and that 0 / 0
    counts as a perfect score (metric 1, loss 0: predicting nothing when nothing is
    positive costs nothing); expected losses stay in [0, 1]. Top-k decisions are optimal
    when the metric increases with TP (Theorem 1).

    Parameters
    ----------
    numerator, denominator : sequence of 5 float
        Coefficients ``(c0, c_TP, c_FP, c_FN, c_TN)`` of each part, finite; the
        denominator has at least one non-zero coefficient.
    name : str, optional
        Display name of the loss.

    Returns
    -------
    SetLoss
        The loss with its :class:`LinearFractional` coefficients.

    Raises
    ------
    InputError
        Not five finite numbers each, an all-zero denominator, or a metric that leaves [0, 1]
        on some confusion matrix (the message names the metric and the counts where it does,
        for example where its denominator vanishes while its numerator does not).
    """
    num = tuple(float(v) for v in numerator)
    den = tuple(float(v) for v in denominator)
    if len(num) != 5 or len(den) != 5 or not all(map(math.isfinite, num + den)):
        raise InputError("linear-fractional coefficients: five finite numbers each (constant, TP, FP, FN, TN)")
    if not any(den):
        raise InputError("the denominator needs at least one non-zero coefficient")
    terms = ["", "TP", "FP", "FN", "TN"]

    def show(c):
        parts = [f"{v:g}{('·' + t) if t else ''}" for v, t in zip(c, terms) if v != 0]
        return " + ".join(parts) or "0"

    formula = f"({show(num)}) / ({show(den)})"
    problem = _outside_unit_interval(num, den)
    if problem is not None:
        raise InputError(
            f"The {name} {formula} is not a score between 0 and 1: {problem}, so its expected loss "
            "1 − metric would leave [0, 1]. Choose coefficients with 0 ≤ numerator ≤ denominator for "
            "every count (for example all non-negative, each denominator coefficient at least the "
            "numerator's); where both are 0 the metric counts as 1."
        )
    lf = LinearFractional(num, den)
    return SetLoss(name, f"1 - {formula}", "Koyejo et al. (2014) linear-fractional family", lf.metric, lf)


def fbeta(beta: float = 1.0) -> SetLoss:
    """F-beta loss: ``1 − (1 + β²)TP / ((1 + β²)TP + β²FN + FP)``.

    Parameters
    ----------
    beta : float, optional
        β > 0, finite: weight of recall against precision (1 gives F1).

    Returns
    -------
    SetLoss
        Named ``"F1"`` for β = 1, with its linear-fractional coefficients.

    Raises
    ------
    InputError
        β not a finite number > 0.
    """
    try:
        beta = float(beta)
    except (TypeError, ValueError):
        raise InputError(f"β of the F-beta loss must be a finite number > 0, not {beta!r}") from None
    if not (beta > 0 and math.isfinite(beta)):
        raise InputError(f"β of the F-beta loss must be a finite number > 0, not {beta:g}")
    b2 = beta * beta
    lf = LinearFractional((0.0, 1 + b2, 0.0, 0.0, 0.0), (0.0, 1 + b2, 1.0, b2, 0.0))
    name = "F1" if beta == 1 else f"F-beta (beta={beta:g})"
    return SetLoss(
        name,
        f"1 - (1+β²)TP / ((1+β²)TP + β²FN + FP), β = {beta:g}",
        "Lewis (1995); Natarajan et al. (2016) Table 1",
        lf.metric,
        lf,
    )


def _rates_metric(rates: Callable) -> Callable:
    """``metric(tp, fp, fn, tn)`` on arrays from a metric of (TPR, TNR, precision)."""

    def metric(tp, fp, fn, tn):
        return rates(_ratio(tp, tp + fn), _ratio(tn, tn + fp), _ratio(tp, tp + fp))

    return metric


@dataclass(frozen=True)
class LossChoice:
    """One registered loss: its key, names, formula and metric, written once.

    A loss is one of three kinds: ``rates`` (a metric of TPR, TNR and precision, used by
    the numpy path *and* compiled into the pair kernel of :mod:`engine.setloss.kernels`),
    ``fractional`` (fixed linear-fractional coefficients, the O(n²) path), or ``build``
    (a builder taking the entry's ``parameter`` or the ten coefficients).

    Attributes
    ----------
    key : str
        Key of :data:`LOSSES`, of :func:`build_loss` and the name :func:`get_loss` accepts.
    title : str
        Menu title.
    formula : str
        The loss as a formula for people.
    reference : str
        Where the metric is defined.
    name : str
        Display name of the built loss (default: ``title``).
    rates : callable or None
        ``metric(tpr, tnr, precision)``, branch-free arithmetic (``+ - * /``, comparisons,
        ``np.sqrt``) so that it runs on numpy arrays and compiled with Numba; a rate whose
        denominator is 0 arrives as 1.
    fractional : LinearFractional or None
        Coefficients of a fixed linear-fractional metric.
    build : callable or None
        ``build(**params)`` -> :class:`SetLoss` for a loss with a parameter or coefficients.
    parameter : str
        Name of the one number the loss takes (F-beta's ``beta``), or empty; spelled
        ``<key>:<value>`` on the command line.
    coefficients : bool
        True for the user-defined linear-fractional metric, built from ten numbers with
        :func:`linear_fractional`.
    aliases : tuple of str
        Other spellings :func:`get_loss` accepts for the key.
    """

    key: str
    title: str
    formula: str = ""
    reference: str = ""
    name: str = ""
    rates: Callable | None = field(default=None, repr=False, compare=False)
    fractional: LinearFractional | None = None
    build: Callable[..., SetLoss] | None = field(default=None, repr=False, compare=False)
    parameter: str = ""
    coefficients: bool = False
    aliases: tuple[str, ...] = ()

    def loss(self, **params) -> SetLoss:
        """The loss of this entry.

        Parameters
        ----------
        **params
            The entry's ``parameter`` (e.g. ``beta``) or ``numerator``/``denominator``;
            ignored by entries without them.

        Returns
        -------
        SetLoss
            The loss, with its compiled kernel (``rates``) or coefficients (``fractional``).
        """
        if self.build is not None:
            return self.build(**params)
        name = self.name or self.title
        if self.fractional is not None:
            return SetLoss(name, self.formula, self.reference, self.fractional.metric, self.fractional)
        return SetLoss(name, self.formula, self.reference, _rates_metric(self.rates), kernel=self.key)  # type: ignore[arg-type]

    @property
    def spelling(self) -> str:
        """How the command line and :func:`get_loss` spell it (``fbeta:<beta>``)."""
        return f"{self.key}:<{self.parameter}>" if self.parameter else self.key


#: F1 = 2TP / (2TP + FP + FN) as linear-fractional coefficients (constant, TP, FP, FN, TN)
F1_COEFFICIENTS = ((0.0, 2.0, 0.0, 0.0, 0.0), (0.0, 2.0, 1.0, 1.0, 0.0))
_TABLE1 = "Natarajan et al. (2016) Table 1"

#: Every loss the studio offers, in menu order: the one place a loss is added. Pages, the CLI
#: (``--loss`` help), :func:`get_loss`, the compiled kernels and the tests list from here.
LOSSES: dict[str, LossChoice] = {
    c.key: c
    for c in (
        LossChoice("f1", "F1", "1 - 2TP / (2TP + FP + FN)", "Lewis (1995); " + _TABLE1, build=lambda **_: fbeta(1.0)),
        LossChoice(
            "fbeta",
            "F-beta",
            "1 - (1+β²)TP / ((1+β²)TP + β²FN + FP)",
            "Lewis (1995); " + _TABLE1,
            build=lambda beta=1.0, **_: fbeta(beta),
            parameter="beta",
            aliases=("f",),
        ),
        LossChoice(
            "jaccard",
            "Jaccard",
            "1 - TP / (TP + FP + FN)",
            _TABLE1,
            fractional=LinearFractional((0.0, 1.0, 0.0, 0.0, 0.0), (0.0, 1.0, 1.0, 1.0, 0.0)),
        ),
        LossChoice(
            "am",
            "AM (balanced error)",
            "1 - (TPR + TNR) / 2",
            _TABLE1,
            name="AM",
            rates=lambda tpr, tnr, precision: 0.5 * (tpr + tnr),
        ),
        LossChoice(
            "gmean", "G-mean", "1 - sqrt(TPR · TNR)", _TABLE1, rates=lambda tpr, tnr, precision: np.sqrt(tpr * tnr)
        ),
        # 2 / (1/TPR + 1/TNR) = 2·TPR·TNR / (TPR + TNR), 0 when both are 0 (the "+ (s == 0)" keeps it branch-free)
        LossChoice(
            "hmean",
            "H-mean",
            "1 - 2 / (1/TPR + 1/TNR)",
            _TABLE1,
            rates=lambda tpr, tnr, precision: 2.0 * tpr * tnr / (tpr + tnr + (tpr + tnr == 0.0)),
        ),
        LossChoice(
            "gtppr",
            "G-TP/PR",
            "1 - sqrt(TPR · Precision)",
            _TABLE1,
            rates=lambda tpr, tnr, precision: np.sqrt(tpr * precision),
        ),
        # AUC of binary predictions counts a (positive, negative) pair as misordered when the
        # positive is missed and the negative flagged: loss = FN·FP / (P·N) = (1 - TPR)(1 - TNR)
        LossChoice(
            "auc",
            "binary AUC",
            "FP·FN / ((TP + FN)(FP + TN))",
            "Joachims (2005); " + _TABLE1,
            rates=lambda tpr, tnr, precision: 1.0 - (1.0 - tpr) * (1.0 - tnr),
        ),
        LossChoice(
            "custom",
            "Custom linear-fractional",
            "1 - (c0 + c·counts) / (d0 + d·counts)",
            "Koyejo et al. (2014) linear-fractional family",
            coefficients=True,
            build=lambda numerator=F1_COEFFICIENTS[0], denominator=F1_COEFFICIENTS[1], **_: linear_fractional(
                numerator, denominator
            ),
        ),
    )
}

#: the names :func:`get_loss` accepts, for help and error texts
LOSS_SPELLINGS: tuple[str, ...] = tuple(c.spelling for c in LOSSES.values() if not c.coefficients)


_NUMBER = r"([0-9]*\.?[0-9]+(?:e[-+]?[0-9]+)?)"


def get_loss(
    loss: str | SetLoss,
    *,
    beta: float | None = None,
    numerator: tuple | None = None,
    denominator: tuple | None = None,
) -> SetLoss:
    """A loss object from a name of :data:`LOSS_SPELLINGS` (f1, fbeta:2, jaccard, am, ...) or a key with its parameter.

    Parameters
    ----------
    loss : str or SetLoss
        A key of :data:`LOSSES` (case and surrounding spaces ignored; ``<key>:<value>`` or
        ``<key>=<value>`` for a loss with a parameter, e.g. ``fbeta:2`` or ``f=2``), or a
        loss, returned as is.
    beta : float, optional
        β of F-beta, with ``loss="fbeta"`` (the same loss as ``"fbeta:<beta>"``).
    numerator, denominator : sequence of five floats, optional
        Coefficients (constant, TP, FP, FN, TN) of the custom linear-fractional metric, with
        ``loss="custom"`` (default: F1's, ``F1_COEFFICIENTS``).

    Returns
    -------
    SetLoss
        The loss.

    Raises
    ------
    InputError
        An unknown name or an invalid parameter.

    References
    ----------
    .. [1] Natarajan, N., Koyejo, O., Ravikumar, P. & Dhillon, I. S. (2016). *Optimal
       Classification with Multivariate Losses.* ICML 2016, PMLR 48: Table 1 (the losses).

    Examples
    --------
    >>> from engine import get_loss
    >>> get_loss("fbeta:2").name
    'F-beta (beta=2)'
    """
    if isinstance(loss, SetLoss):
        return loss
    key = str(loss).strip().lower()
    params = {
        k: v for k, v in (("beta", beta), ("numerator", numerator), ("denominator", denominator)) if v is not None
    }
    if params or (key in LOSSES and (LOSSES[key].coefficients or LOSSES[key].parameter)):
        if key not in LOSSES:
            raise InputError(f"unknown loss {loss!r}; choose one of {', '.join(LOSSES)}")
        return LOSSES[key].loss(**params)
    for choice in LOSSES.values():
        if choice.coefficients:
            continue
        if not choice.parameter and key == choice.key:
            return choice.loss()
        if choice.parameter:
            names = "|".join(re.escape(k) for k in (choice.key, *choice.aliases))
            match = re.fullmatch(rf"(?:{names})[:=]\s*{_NUMBER}", key)
            if match:
                return choice.loss(**{choice.parameter: float(match.group(1))})
    raise InputError(
        f"unknown loss {loss!r}; use one of {', '.join(LOSS_SPELLINGS)} or a SetLoss (see linear_fractional)"
    )
