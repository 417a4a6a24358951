"""The decision registry on a database session: propose, transition, read and verify decisions.

Each function works inside the caller's transaction (:func:`engine.workspace._database.write_session`
for writes). A transition locks the decision's row first (``SELECT … FOR UPDATE`` on PostgreSQL;
on SQLite the write transaction already holds the database's write lock), then reads its last
event, so of two people acting at once the second reads what the first wrote and is refused by
:func:`engine.workspace.access.may` with the first one's name and time.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from ..errors import InputError
from ._canonical import canonical, read_canonical
from ._decisions import CONTENT_FIELDS, DECISION_KINDS, GENESIS, TRANSITIONS, content_hash, event_hash, now
from ._models import DecisionDatasetRow, DecisionRow, EventRow
from ._objects import Decision, Event
from .access import Identity, may

__all__ = ["propose_decision", "transition", "load_decisions", "decision_values"]

_MAX_NOTE = 10_000


def _number(value, what: str, *, probability: bool = False) -> float | None:
    if value is None:
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{what} is {value!r}; give a number.") from None
    if probability and not 0 < number < 1:
        raise InputError(f"{what} is {number:g}; give a marginal precision strictly between 0 and 1.")
    if not probability and not (math.isfinite(number) and number >= 0):
        raise InputError(f"{what} is {number:g}; give a non-negative count.")
    return number


def _text(value, what: str, limit: int, *, empty: bool = False) -> str:
    if not isinstance(value, str) or (not empty and not value.strip()) or len(value) > limit:
        raise InputError(f"{what} must be text of at most {limit:,} characters{'' if empty else ', not empty'}.")
    return value


def decision_values(
    identity: Identity,
    *,
    kind: str,
    classifier: str,
    threshold: Any,
    target: float | None,
    tp: float | None,
    fp: float | None,
    settings: Mapping | None,
    evidence: Mapping | None,
    note: str,
    name: str | None,
) -> dict:
    """A new decision's columns, validated (kind, texts, numbers, JSON), without its id.

    Parameters
    ----------
    identity : Identity
        The proposer.
    kind, classifier, threshold, target, tp, fp, settings, evidence, note, name
        As :meth:`engine.workspace.Workspace.propose` takes them.

    Returns
    -------
    dict
        The :class:`~engine.workspace._models.DecisionRow` columns (status ``proposed``).
    """
    if kind not in DECISION_KINDS:
        raise InputError(f"unknown decision kind {kind!r}; kinds are {', '.join(DECISION_KINDS)}.")
    classifier = _text(classifier, "the classifier", 255)
    target = _number(target, "the target", probability=True)
    default = f"{classifier} at marginal precision {target:g}" if target is not None else classifier
    return {
        "kind": kind,
        "name": _text(name if name is not None else default[:255], "the decision's name", 255),
        "classifier": classifier,
        "threshold": canonical(threshold, "the threshold"),
        "target": target,
        "tp": _number(tp, "tp"),
        "fp": _number(fp, "fp"),
        "settings": canonical(dict(settings or {}), "the decision's settings"),
        "evidence": canonical(dict(evidence or {}), "the decision's evidence"),
        "note": _text(note, "the note", _MAX_NOTE, empty=True),
        "proposed_by": identity.name,
        "proposed_at": now(),
        "status": "proposed",
    }


def _columns(row: DecisionRow) -> dict:
    return {c: getattr(row, c) for c in CONTENT_FIELDS}


def _event(session: Session, row: DecisionRow, seq: int, event: str, by: str, note: str, prev: str, content: str):
    at = now()
    digest = event_hash(row.id, seq, event, by, at, note, content, prev)
    session.add(
        EventRow(
            decision_id=row.id,
            seq=seq,
            event=event,
            by=by,
            at=at,
            note=note,
            content_hash=content,
            prev_hash=prev,
            hash=digest,
        )
    )


def propose_decision(session: Session, values: dict, datasets: Sequence[str]) -> int:
    """Insert a decision and its first event (``proposed``); the caller has checked the proposer may.

    Parameters
    ----------
    session : sqlalchemy.orm.Session
        In a write transaction.
    values : dict
        From :func:`decision_values`.
    datasets : sequence of str
        SHA-256 of its datasets (in the workspace).

    Returns
    -------
    int
        The decision's id.
    """
    row = DecisionRow(**values)
    session.add(row)
    session.flush()
    for position, sha in enumerate(datasets):
        session.add(DecisionDatasetRow(decision_id=row.id, position=position, sha256=sha))
    content = content_hash(_columns(row), datasets)
    _event(session, row, 1, "proposed", values["proposed_by"], values["note"], GENESIS, content)
    session.flush()
    return row.id


def load_decisions(session: Session, rows: Sequence[DecisionRow], public_url: str) -> list[Decision]:
    """The :class:`Decision` of each row, with its datasets and history (two queries for all of them).

    Parameters
    ----------
    session : sqlalchemy.orm.Session
    rows : sequence of DecisionRow
    public_url : str
        The studio's address, for the links.

    Returns
    -------
    list of Decision
    """
    ids = [r.id for r in rows]
    shas: dict[int, list[str]] = {i: [] for i in ids}
    history: dict[int, list[Event]] = {i: [] for i in ids}
    if ids:
        links = select(DecisionDatasetRow).where(DecisionDatasetRow.decision_id.in_(ids))
        for link in session.scalars(links.order_by(DecisionDatasetRow.decision_id, DecisionDatasetRow.position)):
            shas[link.decision_id].append(link.sha256)
        events = select(EventRow).where(EventRow.decision_id.in_(ids)).order_by(EventRow.decision_id, EventRow.seq)
        for e in session.scalars(events):
            history[e.decision_id].append(
                Event(e.decision_id, e.seq, e.event, e.by, e.at, e.note, e.content_hash, e.prev_hash, e.hash)
            )
    return [
        Decision(
            id=r.id,
            name=r.name,
            kind=r.kind,
            status=r.status,
            classifier=r.classifier,
            threshold=read_canonical(r.threshold, f"decision {r.id}'s threshold"),
            target=r.target,
            tp=r.tp,
            fp=r.fp,
            settings=read_canonical(r.settings, f"decision {r.id}'s settings"),
            datasets=tuple(shas[r.id]),
            evidence=read_canonical(r.evidence, f"decision {r.id}'s evidence"),
            note=r.note,
            proposed_by=r.proposed_by,
            proposed_at=r.proposed_at,
            content_hash=history[r.id][-1].content_hash if history[r.id] else "",
            history=tuple(history[r.id]),
            link=f"{public_url}/decisions?decision={r.id}",
        )
        for r in rows
    ]


def transition(
    session: Session, decision_id: int, action: str, identity: Identity, note: str, datasets_of, public_url: str
) -> None:
    """Append one event (``approved``, ``rejected``, ``deployed`` or ``retired``) to a locked decision.

    Parameters
    ----------
    session : sqlalchemy.orm.Session
        In a write transaction.
    decision_id : int
    action : str
        approve, reject, deploy or retire.
    identity : Identity
        Who acts (checked by :func:`~engine.workspace.access.may` on the decision as now stored).
    note : str
        Their note.
    datasets_of : callable
        ``datasets_of(session, shas)`` -> mapping of SHA-256 to Dataset (for the privacy check).
    public_url : str

    Raises
    ------
    AccessError
        Not allowed, or the decision is no longer in the status the action starts from (naming who
        moved it on and when).
    InputError
        No such decision.
    """
    row = session.scalars(select(DecisionRow).where(DecisionRow.id == decision_id).with_for_update()).first()
    if row is None:
        raise InputError(f"there is no decision {decision_id} in this workspace.")
    decision = load_decisions(session, [row], public_url)[0]
    may(identity, action, decision, datasets=datasets_of(session, decision.datasets)).check()
    last = decision.history[-1]
    if content_hash(_columns(row), decision.datasets) != last.content_hash:
        raise InputError(
            f"decision {decision_id} no longer matches its content hash (it was changed in the database); "
            "nothing was recorded. Run `opstudio decisions verify` and restore the database from a backup."
        )
    event = TRANSITIONS[action][1]
    _event(
        session,
        row,
        last.seq + 1,
        event,
        identity.name,
        _text(note, "the note", _MAX_NOTE, empty=True),
        last.hash,
        last.content_hash,
    )
    row.status = event
    session.flush()
