"""Deciding a user's probability batches: one optimal top-k per batch, a file of decisions, a summary.

Natarajan, Koyejo, Ravikumar & Dhillon (ICML 2016), Theorem 1 and Algorithm 1:
every batch of :class:`~engine.io._batches.ProbabilityBatches` is decided on its
own by :func:`~engine.setloss._decisions.optimal_decision`. Beside it, the
threshold-0.5 rule (flag ``eta >= 0.5``) is scored with the same expected loss,
so the table says what the optimal decision saves. Where labels are known, the
realised loss of both decisions is reported too.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..errors import InputError
from ..io._batches import BatchMapping, ProbabilityBatches
from ._decisions import Decision, early_stop_decision, monte_carlo_loss, optimal_decision, top_k_decision
from ._expected import check_probabilities
from ._losses import SetLoss, get_loss
from ._protocol import ScoredSplit, batch_indices, scored_split_from_arrays

__all__ = [
    "BatchOutcome",
    "decide_batch",
    "BatchDecisions",
    "decide_batches",
    "decided_items",
    "MonteCarloCheck",
    "monte_carlo_check",
    "batches_from_split",
    "labelled_split",
    "small_batch_losses",
    "THRESHOLD_HALF",
    "SMALL_BATCH",
]

#: the plug-in rule the optimal decision is compared with: flag items with eta >= 1/2
THRESHOLD_HALF = 0.5


@dataclass(frozen=True)
class BatchOutcome:
    """The optimal decision of one batch beside the threshold-0.5 rule and the paper's early stop.

    Attributes
    ----------
    decision : Decision
        The exact expected-loss-optimal top-k.
    early : Decision
        The paper's early-stop top-k on the same expected losses.
    k_threshold_half : int
        Items with eta >= 0.5.
    loss_threshold_half : float
        Expected loss of flagging them.
    """

    decision: Decision
    early: Decision
    k_threshold_half: int
    loss_threshold_half: float

    @property
    def saving(self) -> float:
        """Expected loss saved by the optimal top-k against flagging ``eta >= 0.5``."""
        return self.loss_threshold_half - self.decision.value

    def sentence(self, batch: str = "the batch") -> str:
        """The decision and what it saves, in one sentence.

        Parameters
        ----------
        batch : str, optional
            How the sentence names the batch.

        Returns
        -------
        str
            k of n items, the expected loss, and the threshold-0.5 rule's k and expected loss.
        """
        n = self.decision.mask.size
        return (
            f"Flag the {self.decision.k:,} most probable of the {n:,} items of {batch}: expected "
            f"{self.decision.loss_name} loss {self.decision.value:.4f}, against {self.loss_threshold_half:.4f} "
            f"when flagging the {self.k_threshold_half:,} items with probability ≥ 0.5."
        )


def decide_batch(eta, loss: str | SetLoss) -> BatchOutcome:
    """Optimal top-k of one batch, the paper's early-stop k, and the threshold-0.5 rule's expected loss.

    A batch of at most :data:`SMALL_BATCH` items is computed by :func:`small_batch_losses`
    (as :func:`decide_batches` does), a larger one by
    :func:`~engine.setloss._decisions.optimal_decision`; so a batch gets the same decision
    alone and in a file.

    Parameters
    ----------
    eta : array_like of float, shape (n,)
        Calibrated probabilities of the batch's items.
    loss : str or SetLoss
        The set loss.

    Returns
    -------
    BatchOutcome
        The optimal and early-stop decisions and the threshold-0.5 rule's expected loss.

    References
    ----------
    .. [1] Natarajan, N., Koyejo, O., Ravikumar, P. & Dhillon, I. S. (2016). *Optimal
       Classification with Multivariate Losses.* ICML 2016, PMLR 48: Algorithm 1 (every k, and its early stop).
    """
    e = check_probabilities(eta)
    loss = get_loss(loss)
    if 0 < e.size <= SMALL_BATCH:
        order = np.argsort(-e, kind="stable")
        losses = small_batch_losses(e[order][None, :], loss)[0]
        decision = top_k_decision(int(np.argmin(losses)), order, losses, loss.name)
    else:
        decision = optimal_decision(e, loss)
    early = early_stop_decision(decision)
    k_half = int((e >= THRESHOLD_HALF).sum())
    return BatchOutcome(decision, early, k_half, float(decision.losses[k_half]))


#: batches of at most this many items are decided all at once, every batch of one size together
SMALL_BATCH = 32
#: cells of the (batches x n x n) products held at once per group of small batches of one size
_SMALL_CHUNK_CELLS = 2_000_000


def _bernoulli_step(pmf: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Row-wise PMFs (B, m) convolved with Bernoulli(p) (B, 1): (B, m + 1)."""
    out = np.zeros((pmf.shape[0], pmf.shape[1] + 1))
    out[:, :-1] = pmf * (1 - p)
    out[:, 1:] += pmf * p
    return out


def small_batch_losses(eta_sorted, loss: str | SetLoss) -> np.ndarray:
    """``L_k`` for k = 0..n of many batches of n items at once: Algorithm 1 as written, vectorised over batches.

    For each k the positives among the top k (``S1``) and among the rest (``S2``) are
    Poisson-binomial; ``L_k = sum_{a, b} P(S1 = a) P(S2 = b) L(a, k - a, b, n - k - b)``,
    one (k + 1) x (n - k + 1) table of the loss shared by every batch. O(n^3) per batch,
    without a Python step per batch: for many small batches (a one-item batch per row) it
    replaces one call of :func:`~engine.setloss._expected.expected_losses` per batch.

    Parameters
    ----------
    eta_sorted : array_like of float, shape (B, n)
        Each row a batch's probabilities in [0, 1], sorted in decreasing order.
    loss : str or SetLoss
        The set loss.

    Returns
    -------
    numpy.ndarray of float64, shape (B, n + 1)
        ``L_k`` of every batch.

    References
    ----------
    .. [1] Natarajan, N., Koyejo, O., Ravikumar, P. & Dhillon, I. S. (2016). *Optimal
       Classification with Multivariate Losses.* ICML 2016, PMLR 48: Algorithm 1.
    """
    loss = get_loss(loss)
    e = np.asarray(eta_sorted, dtype=float)
    b, n = e.shape
    suffix = [np.ones((b, 1))]  # suffix[j]: PMF of the positives among the last j items
    for k in range(n - 1, -1, -1):
        suffix.append(_bernoulli_step(suffix[-1], e[:, k : k + 1]))
    prefix = np.ones((b, 1))
    out = np.empty((b, n + 1))
    for k in range(n + 1):
        a = np.arange(k + 1, dtype=float)[:, None]
        c = np.arange(n - k + 1, dtype=float)[None, :]
        table = np.broadcast_to(loss(a, k - a, c, n - k - c), (k + 1, n - k + 1))
        # plain sums (no BLAS): each batch's value does not depend on how many batches share the call
        out[:, k] = ((prefix[:, :, None] * table[None, :, :]).sum(axis=1) * suffix[n - k]).sum(axis=1)
        if k < n:
            prefix = _bernoulli_step(prefix, e[:, k : k + 1])
    return out


@dataclass(frozen=True)
class BatchDecisions:
    """Every batch decided: ``decisions`` has one row per input row in input order; ``summary`` one per batch.

    Attributes
    ----------
    decisions : pandas.DataFrame
        One row per input row, input order: the item column (when mapped), ``batch``,
        ``probability``, ``decision`` (0/1) and ``k`` of its batch.
    summary : pandas.DataFrame
        One row per batch: ``batch``, ``items``, ``k``, ``expected loss``, ``k at η ≥ 0.5``,
        ``expected loss at η ≥ 0.5`` and, with labels, ``realised loss`` and
        ``realised loss at η ≥ 0.5``.
    loss_name : str
        Name of the set loss.
    """

    decisions: pd.DataFrame
    summary: pd.DataFrame
    loss_name: str


def decide_batches(
    batches: ProbabilityBatches, loss: str | SetLoss, *, progress: Callable[[int, int], None] | None = None
) -> BatchDecisions:
    """Decide every batch optimally; rows in input order with ``decision`` (0/1), ``batch`` and ``k``.

    The summary gives per batch: items, k, the expected loss at k, the threshold-0.5
    rule's k and expected loss, and with labels the realised loss of both.

    Parameters
    ----------
    batches : ProbabilityBatches
        The items, their probabilities and batches (labels optional).
    loss : str or SetLoss
        The set loss.
    progress : callable, optional
        ``progress(done, total)`` after each batch.

    Returns
    -------
    BatchDecisions
        Per-item decisions and the per-batch summary.

    Raises
    ------
    ValueError
        An unknown loss name.
    """
    loss = get_loss(loss)
    codes, names = pd.factorize(batches.batch_ids)  # batches in order of first appearance
    sizes = np.bincount(codes, minlength=len(names))
    rows = np.argsort(codes, kind="stable")  # every batch's rows, in input order, one batch after another
    starts = np.r_[0, np.cumsum(sizes)[:-1]]
    decision = np.zeros(batches.n_items, dtype=bool)
    per_batch = {
        key: np.zeros(len(names), dtype=dtype)
        for key, dtype in (("k", np.int64), ("loss", float), ("k_half", np.int64), ("loss_half", float))
    }
    done = 0
    for size in np.unique(sizes):
        group = np.flatnonzero(sizes == size)
        chunk = max(1, _SMALL_CHUNK_CELLS // int(size + 1) ** 2) if size <= SMALL_BATCH else 1
        for lo in range(0, group.size, chunk):
            part = group[lo : lo + chunk]
            items = rows[starts[part][:, None] + np.arange(size)[None, :]]  # (batches, size), input order
            _decide_group(batches.probabilities[items], items, part, loss, decision, per_batch)
            done += part.size
            if progress is not None:
                progress(done, len(names))
    summary = {
        "batch": np.asarray(names, dtype=object),
        "items": sizes,
        "k": per_batch["k"],
        "expected loss": per_batch["loss"],
        "k at η ≥ 0.5": per_batch["k_half"],
        "expected loss at η ≥ 0.5": per_batch["loss_half"],
    }
    if batches.labels is not None:
        summary["realised loss"] = _realised_losses(decision, batches.labels, codes, len(names), loss)
        summary["realised loss at η ≥ 0.5"] = _realised_losses(
            batches.probabilities >= THRESHOLD_HALF, batches.labels, codes, len(names), loss
        )
    out = {}
    if batches.item_ids is not None:
        out[batches.mapping.item_col] = batches.item_ids
    out.update(
        {
            "batch": batches.batch_ids,
            "probability": batches.probabilities,
            "decision": decision.astype(np.int8),
            "k": per_batch["k"][codes],
        }
    )
    return BatchDecisions(pd.DataFrame(out), pd.DataFrame(summary), loss.name)


def _decide_group(
    eta: np.ndarray, items: np.ndarray, part: np.ndarray, loss: SetLoss, decision: np.ndarray, per_batch: dict
) -> None:
    """Decide batches of one size (rows of ``eta``): small ones together, a large one alone; results in place."""
    size = eta.shape[1]
    if size > SMALL_BATCH:
        outcome = decide_batch(eta[0], loss)
        decision[items[0]] = outcome.decision.mask
        losses, k = outcome.decision.losses[None, :], np.array([outcome.decision.k])
    else:
        order = np.argsort(-eta, axis=1, kind="stable")
        losses = small_batch_losses(np.take_along_axis(eta, order, axis=1), loss)
        k = np.argmin(losses, axis=1)  # the smallest k among equal expected losses, as optimal_decision
        rank = np.empty_like(order)
        np.put_along_axis(rank, order, np.arange(size)[None, :], axis=1)
        decision[items] = rank < k[:, None]
    k_half = (eta >= THRESHOLD_HALF).sum(axis=1)
    per_batch["k"][part] = k
    per_batch["loss"][part] = losses[np.arange(part.size), k]
    per_batch["k_half"][part] = k_half
    per_batch["loss_half"][part] = losses[np.arange(part.size), k_half]


def _realised_losses(
    mask: np.ndarray, labels: np.ndarray, codes: np.ndarray, n_batches: int, loss: SetLoss
) -> np.ndarray:
    """Every batch's loss of ``mask`` on its labelled items (NaN for a batch without one)."""
    known = labels >= 0
    y = labels == 1

    def count(selected):
        return np.bincount(codes[known & selected], minlength=n_batches).astype(float)

    tp, fp, fn, tn = count(y & mask), count(~y & mask), count(y & ~mask), count(~y & ~mask)
    labelled = np.bincount(codes[known], minlength=n_batches) > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        values = np.asarray(loss(tp, fp, fn, tn), dtype=float)
    return np.where(labelled, values, math.nan)


def decided_items(batches: ProbabilityBatches, batch: str, decision: Decision) -> pd.DataFrame:
    """One batch's items, most probable first, with their row in the input and the flag.

    Parameters
    ----------
    batches : ProbabilityBatches
        The batches.
    batch : str
        Name of the batch.
    decision : Decision
        The batch's decision (items in the batch's row order).

    Returns
    -------
    pandas.DataFrame
        Columns ``row`` (1-based input row), the item column (when mapped),
        ``probability`` and ``flag``; sorted by probability, descending.
    """
    items = batches.rows_of(batch)
    table = {"row": items + 1}
    if batches.item_ids is not None:
        table[batches.mapping.item_col] = batches.item_ids[items]  # type: ignore[index]
    table.update({"probability": batches.probabilities[items], "flag": decision.mask})
    return pd.DataFrame(table).iloc[decision.order].reset_index(drop=True)


@dataclass(frozen=True)
class MonteCarloCheck:
    """Simulated mean loss of a decision against its exact expected loss.

    Attributes
    ----------
    mean : float
        Mean loss over the simulated label vectors.
    standard_error : float
        Its standard error.
    exact : float
        The exact expected loss (Algorithm 1).
    consistent : bool
        True when ``|mean − exact|`` is at most three standard errors.
    """

    mean: float
    standard_error: float
    exact: float
    consistent: bool

    @property
    def sentence(self) -> str:
        verdict = "consistent" if self.consistent else "inconsistent"
        return (
            f"Simulated mean loss {self.mean:.5f} ± {1.96 * self.standard_error:.5f} (95 %), exact "
            f"{self.exact:.4f}: {verdict}."
        )


def monte_carlo_check(
    eta, decision: Decision, loss: str | SetLoss, *, draws: int = 20_000, seed: int = 0
) -> MonteCarloCheck:
    """Simulate label vectors ``Y_i ~ Bernoulli(eta_i)`` and compare the mean loss with the exact one.

    Consistent when the two differ by at most three standard errors (a check of
    Algorithm 1's expectation, independent of its algebra).

    Parameters
    ----------
    eta : array_like of float, shape (n,)
        The batch's probabilities.
    decision : Decision
        The decision to check.
    loss : str or SetLoss
        The set loss.
    draws : int, optional
        Simulated label vectors.
    seed : int, optional
        Seed of the random generator.

    Returns
    -------
    MonteCarloCheck
        Simulated mean, standard error, exact value and the verdict.
    """
    mean, se = monte_carlo_loss(eta, decision.mask, loss, draws=draws, seed=seed)
    tolerance = max(3 * se, 1e-9) if math.isfinite(se) else 1e-9
    return MonteCarloCheck(mean, se, decision.value, abs(mean - decision.value) <= tolerance)


def batches_from_split(split: ScoredSplit, batch_size: int, *, seed: int = 0) -> ProbabilityBatches:
    """The test items of a trained model cut into batches as in the paper's protocol (full batches only).

    Parameters
    ----------
    split : ScoredSplit
        Test probabilities and labels.
    batch_size : int
        Items per batch, between 1 and the number of test items.
    seed : int, optional
        Seed of the random permutation.

    Returns
    -------
    ProbabilityBatches
        ``n_test // batch_size`` batches named ``batch 1``, ``batch 2`` ...; items are
        named by their 1-based test row; labels kept.

    Raises
    ------
    InputError
        ``batch_size`` outside [1, number of test items].
    """
    if not 1 <= batch_size <= split.eta_test.size:
        raise InputError(f"Batch size {batch_size:,} must be between 1 and the {split.eta_test.size:,} test items.")
    order = np.concatenate(batch_indices(split.eta_test.size, batch_size, seed))
    batch_ids = np.repeat([f"batch {i + 1}" for i in range(order.size // batch_size)], batch_size).astype(object)
    return ProbabilityBatches(
        split.eta_test[order],
        batch_ids,
        (order + 1).astype(str).astype(object),
        split.y_test[order].astype(np.int8),
        BatchMapping("probability", "batch", "test item", "label"),
        name=split.name,
    )


def labelled_split(batches: ProbabilityBatches, *, seed: int = 0) -> ScoredSplit:
    """The labelled items of ``batches`` split into validation and test halves for the paper's baselines.

    Parameters
    ----------
    batches : ProbabilityBatches
        Batches with a label column.
    seed : int, optional
        Seed of the random split.

    Returns
    -------
    ScoredSplit
        Half the labelled items for validation, half for test.

    Raises
    ------
    InputError
        Fewer than two labelled items.
    """
    if batches.labels is None or batches.n_labelled < 2:
        raise InputError(
            f"'{batches.name}' has {batches.n_labelled} labelled items; the baselines need at least two. "
            "Map a label column (1/0, yes/no ...) on the Data page."
        )
    known = batches.labels >= 0
    return scored_split_from_arrays(batches.probabilities[known], batches.labels[known], name=batches.name, seed=seed)
