"""Decisions as a hash chain: their kinds, their statuses, the transitions between them, and the check of every hash.

A decision's **content** is every field but its status, written once as canonical JSON; its
SHA-256 is carried by every event. An **event** is one transition (who, when, note); its hash
covers its own fields, the content hash and the previous event's hash, so changing any stored
event or any decision's content, or removing an event from the middle of a chain, breaks a hash
that :func:`verify_chains` recomputes. (A hash chain is not a signature: someone who can write
the database can rewrite a whole chain consistently; :attr:`Verification.head` summarises every
chain in one hash that can be written down elsewhere and compared later.)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timezone

from ._canonical import canonical, plain_canonical, sha256_text
from ._objects import Verification

__all__ = [
    "DECISION_KINDS",
    "STATUSES",
    "TRANSITIONS",
    "GENESIS",
    "CONTENT_FIELDS",
    "now",
    "content_hash",
    "event_hash",
    "refusal",
    "verify_chains",
]

#: the kinds of decision, by key, with their names for people
DECISION_KINDS = {
    "operating_point": "Operating point",
    "segment_thresholds": "Per-segment thresholds",
    "joint_thresholds": "Joint thresholds",
    "constrained_model": "Constrained model",
    "early_exit_policy": "Early-exit policy",
    "batch_rule": "Batch rule",
}
#: every status a decision can have, in the order it reaches them
STATUSES = ("proposed", "approved", "rejected", "deployed", "retired")
#: action -> (the status it starts from, the status it leads to); nothing else is allowed
TRANSITIONS = {
    "approve": ("proposed", "approved"),
    "reject": ("proposed", "rejected"),
    "deploy": ("approved", "deployed"),
    "retire": ("deployed", "retired"),
}
#: the previous hash of a chain's first event
GENESIS = "0" * 64
#: the columns of a decision that are its content (hashed; everything but the status), and its datasets
CONTENT_FIELDS = (
    "id",
    "kind",
    "name",
    "classifier",
    "threshold",
    "target",
    "tp",
    "fp",
    "settings",
    "evidence",
    "note",
    "proposed_by",
    "proposed_at",
)
_STATUS_AFTER = {new: old for old, new in TRANSITIONS.values()}


def now() -> str:
    """The current time as the workspace stores it: ISO 8601 in UTC with microseconds, ``…Z``.

    Returns
    -------
    str
    """
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def content_hash(decision: Mapping, datasets: Sequence[str]) -> str:
    """SHA-256 of a decision's content: its :data:`CONTENT_FIELDS` as stored (JSON fields as their text) and datasets.

    Parameters
    ----------
    decision : mapping
        The decision's columns (a row's mapping or a dict).
    datasets : sequence of str
        SHA-256 of its datasets, in order.

    Returns
    -------
    str
    """
    return sha256_text(plain_canonical({**{f: decision[f] for f in CONTENT_FIELDS}, "datasets": list(datasets)}))


def event_hash(
    decision_id: int, seq: int, event: str, by: str, at: str, note: str, content: str, prev_hash: str
) -> str:
    """SHA-256 of one event's fields, the decision's content hash and the previous event's hash.

    Parameters
    ----------
    decision_id, seq : int
        The decision and the event's position in its chain.
    event, by, at, note : str
        The status entered, who, when and their note.
    content : str
        The decision's content hash.
    prev_hash : str
        The previous event's hash (:data:`GENESIS` for the first).

    Returns
    -------
    str
    """
    return sha256_text(plain_canonical([decision_id, seq, event, by, at, note, content, prev_hash]))


def refusal(decision_id: int, action: str, status: str, last_by: str, last_at: str) -> str | None:
    """Why ``action`` cannot be taken on a decision in ``status`` (naming who moved it there and when), or None.

    Parameters
    ----------
    decision_id : int
    action : str
        A key of :data:`TRANSITIONS`.
    status : str
        The decision's current status.
    last_by, last_at : str
        Who wrote its last event, and when.

    Returns
    -------
    str or None
    """
    start, _ = TRANSITIONS[action]
    if status == start:
        return None
    return (
        f"decision {decision_id} is {status} (by {last_by} at {last_at}); only a {start} decision can be "
        f"{TRANSITIONS[action][1]}."
    )


def _chain_problem(decision: Mapping, events: Sequence[Mapping], datasets: Sequence[str]) -> str | None:
    """The first broken link of one decision's chain, or None."""
    did = decision["id"]
    if not events:
        return f"decision {did} has no events (its proposal event was removed)"
    expected_content = content_hash(decision, datasets)
    prev, status = GENESIS, None
    for number, e in enumerate(events, start=1):
        where = f"event {e['id']} (decision {did}, #{e['seq']} {e['event']})"
        if e["seq"] != number:
            return f"decision {did}: event #{number} is missing (the chain goes on with #{e['seq']}, event {e['id']})"
        recomputed = event_hash(did, e["seq"], e["event"], e["by"], e["at"], e["note"], e["content_hash"], prev)
        if e["prev_hash"] != prev or e["hash"] != recomputed:
            return f"{where} no longer matches its hash: the stored event was changed"
        if e["content_hash"] != expected_content:
            return f"decision {did} no longer matches the content hash in {where}: the decision was changed"
        comes_after = None if e["event"] == "proposed" else _STATUS_AFTER.get(e["event"], "an unknown status")
        if comes_after != status:
            return f"{where} does not follow {status or 'nothing'}: the chain was altered"
        prev, status = e["hash"], e["event"]
    if decision["status"] != status:
        return f"decision {did} says {decision['status']} but its last event is {status}: the decision was changed"
    return None


def verify_chains(
    decisions: Iterable[Mapping], events: Iterable[Mapping], datasets: Mapping[int, Sequence[str]]
) -> Verification:
    """Recompute every decision's content hash and every event's hash.

    Parameters
    ----------
    decisions : iterable of mapping
        Every decision's columns, by increasing id.
    events : iterable of mapping
        Every event's columns, ordered by decision and position.
    datasets : mapping of int to sequence of str
        Each decision's dataset SHA-256s, in order.

    Returns
    -------
    Verification
        The counts, the first problem (None when every hash matches) and the head over every chain.
    """
    by_decision: dict[int, list[Mapping]] = {}
    n_events = 0
    for e in events:
        by_decision.setdefault(e["decision_id"], []).append(e)
        n_events += 1
    heads, problem, n_decisions = [], None, 0
    for decision in decisions:
        n_decisions += 1
        chain = by_decision.pop(decision["id"], [])
        problem = problem or _chain_problem(decision, chain, datasets.get(decision["id"], ()))
        heads.append([decision["id"], chain[-1]["hash"] if chain else None])
    if problem is None and by_decision:
        orphan = min(by_decision)
        problem = f"event {by_decision[orphan][0]['id']} belongs to decision {orphan}, which no longer exists"
    return Verification(n_events, n_decisions, 0, problem, sha256_text(canonical(heads)))
