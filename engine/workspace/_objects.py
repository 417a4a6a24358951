"""What the workspace hands out: small frozen records of its rows (no database session attached)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["Dataset", "View", "Event", "Decision", "Record", "User", "Verification"]


@dataclass(frozen=True)
class Dataset:
    """A dataset: bytes in the store under their SHA-256, with a name, a kind and an owner.

    Attributes
    ----------
    sha256 : str
        SHA-256 of the bytes (the dataset's identity: the same file added twice is one dataset).
    name : str
        The name it was first added under.
    kind : str
        Key of :data:`engine.io.INPUT_KINDS` (``"rated"``, ``"population"`` ...).
    rows : int or None
        Rows of a table (None when the bytes are not read as a table).
    bytes : int
        Size in bytes.
    owner : str
        The identity that added it first.
    private : bool
        Visible only to the identities that added its bytes (else to everyone with a role).
    created_at : str
        When it was first added (ISO 8601, UTC).
    holders : tuple of str
        Every identity that added these bytes (the owner first).
    """

    sha256: str
    name: str
    kind: str
    rows: int | None
    bytes: int
    owner: str
    private: bool
    created_at: str
    holders: tuple[str, ...] = ()

    def as_dict(self) -> dict:
        """``{"sha256", "name", "kind", "rows", "bytes"}`` (``opstudio datasets add --json``)."""
        return {"sha256": self.sha256, "name": self.name, "kind": self.kind, "rows": self.rows, "bytes": self.bytes}


@dataclass(frozen=True)
class View:
    """A saved view: a page with its settings and the datasets it reads.

    Attributes
    ----------
    id : int
        The view's number (``?view=<id>``).
    page : str
        The page's URL path (:data:`engine.pages.PAGES`).
    settings : dict
        The page's settings as it saved them.
    datasets : tuple of str
        SHA-256 of the datasets the view reads, in the page's order.
    owner : str
        Who saved it.
    private : bool
        Only its owner may open it.
    created_at : str
        When it was saved (ISO 8601, UTC).
    link : str
        ``$OPSTUDIO_PUBLIC_URL/<page>?view=<id>``.
    """

    id: int
    page: str
    settings: dict
    datasets: tuple[str, ...]
    owner: str
    private: bool
    created_at: str
    link: str = ""


@dataclass(frozen=True)
class Event:
    """One transition of a decision, hash-chained to the previous one.

    Attributes
    ----------
    decision_id : int
        The decision.
    seq : int
        Position in the decision's chain (1 = proposed).
    event : str
        The status the decision entered: proposed, approved, rejected, deployed or retired.
    by : str
        The identity that acted.
    at : str
        When (ISO 8601, UTC).
    note : str
        The actor's note.
    content_hash : str
        SHA-256 of the decision's content when the event was written.
    prev_hash : str
        The previous event's hash (64 zeros for the first).
    hash : str
        SHA-256 of this event's fields (:func:`engine.workspace._decisions.event_hash`).
    """

    decision_id: int
    seq: int
    event: str
    by: str
    at: str
    note: str
    content_hash: str
    prev_hash: str
    hash: str

    def as_dict(self) -> dict:
        """``{"event", "by", "at", "note", "hash"}`` (``opstudio decisions show --json``'s history)."""
        return {"event": self.event, "by": self.by, "at": self.at, "note": self.note, "hash": self.hash}


@dataclass(frozen=True)
class Decision:
    """A proposed, approved, rejected, deployed or retired operating-point decision.

    Attributes
    ----------
    id : int
        The decision's number.
    name : str
        A name for people.
    kind : str
        Key of :data:`engine.workspace.DECISION_KINDS`.
    status : str
        proposed, approved, rejected, deployed or retired.
    classifier : str
        The model or score column the decision is about.
    threshold : float, list or dict
        The threshold (operating point), thresholds (joint: a list; per segment: a dict) or rule.
    target : float or None
        The target marginal precision, when the decision has one.
    tp, fp : float or None
        Rated true and false positives flagged at the decision's point on its dataset.
    settings : dict
        Everything else that defines the decision (the page's settings).
    datasets : tuple of str
        SHA-256 of the datasets it was computed on.
    evidence : dict
        What supports it: ``{"view": id, "records": [...], ...}``.
    note : str
        The proposer's note.
    proposed_by : str
        Who proposed it.
    proposed_at : str
        When (ISO 8601, UTC).
    content_hash : str
        SHA-256 of the content above (everything but the status).
    history : tuple of Event
        Every transition, oldest first.
    link : str
        ``$OPSTUDIO_PUBLIC_URL/decisions?decision=<id>``.
    """

    id: int
    name: str
    kind: str
    status: str
    classifier: str
    threshold: Any
    target: float | None
    tp: float | None
    fp: float | None
    settings: dict
    datasets: tuple[str, ...]
    evidence: dict
    note: str
    proposed_by: str
    proposed_at: str
    content_hash: str = ""
    history: tuple[Event, ...] = ()
    link: str = ""

    def as_dict(self, history: bool = False) -> dict:
        """The CLI's decision object, with ``"history"`` when asked.

        Parameters
        ----------
        history : bool
            Add ``"history": [{"event", "by", "at", "note", "hash"}, ...]``.

        Returns
        -------
        dict
            ``{"id", "name", "status", "kind", "classifier", "threshold", "target", "tp", "fp",
            "dataset_sha256", "link"}`` (``dataset_sha256``: the first dataset's).
        """
        out = {
            "id": self.id,
            "name": self.name,
            "status": self.status,
            "kind": self.kind,
            "classifier": self.classifier,
            "threshold": self.threshold,
            "target": self.target,
            "tp": self.tp,
            "fp": self.fp,
            "dataset_sha256": self.datasets[0] if self.datasets else None,
            "link": self.link,
        }
        if history:
            out["history"] = [e.as_dict() for e in self.history]
        return out


@dataclass(frozen=True)
class Record:
    """A stored JSON record (an audit design, monitoring alerts ...).

    Attributes
    ----------
    id : int
        The record's number.
    kind : str
        What it is (``"audit_design"``, ``"monitoring"`` ...).
    key : str
        How it is looked up (an audit design's rows digest ...).
    body : Any
        The JSON value.
    sha256 : str
        SHA-256 of the body's canonical JSON.
    dataset_sha256 : str or None
        The dataset it belongs to.
    decision_id : int or None
        The decision it is evidence for.
    created_by : str
        Who stored it.
    created_at : str
        When (ISO 8601, UTC).
    """

    id: int
    kind: str
    key: str
    body: Any
    sha256: str
    dataset_sha256: str | None
    decision_id: int | None
    created_by: str
    created_at: str


@dataclass(frozen=True)
class User:
    """An identity with roles.

    Attributes
    ----------
    email : str
        The identity (the login's ``email`` claim, or ``sub``).
    roles : tuple of str
        Its roles, in :data:`engine.workspace.ROLES` order.
    granted_by : str
        Who granted its latest role.
    granted_at : str
        When (ISO 8601, UTC).
    """

    email: str
    roles: tuple[str, ...]
    granted_by: str
    granted_at: str

    def as_dict(self) -> dict:
        """``{"email", "roles", "granted_by", "granted_at"}`` (``opstudio users list --json``)."""
        return {
            "email": self.email,
            "roles": list(self.roles),
            "granted_by": self.granted_by,
            "granted_at": self.granted_at,
        }


@dataclass(frozen=True)
class Verification:
    """The result of checking every hash of the workspace.

    Attributes
    ----------
    events : int
        Events whose hashes were checked.
    decisions : int
        Decisions whose content was checked.
    records : int
        Records whose body was checked.
    problem : str or None
        The first mismatch, naming the event, decision or record; None when everything matches.
    head : str
        SHA-256 over every decision's last event hash (write it down to detect a rewritten chain later).
    """

    events: int
    decisions: int
    records: int
    problem: str | None = None
    head: str = field(default="")

    @property
    def ok(self) -> bool:
        """Whether every hash matched."""
        return self.problem is None
