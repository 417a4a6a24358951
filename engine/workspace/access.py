"""Who may do what: the one place that answers "may identity X do action A on object O".

Every page and every command asks :func:`may` before acting (the workspace's own methods ask it
too, so a forgotten check still refuses); the answer is a :class:`Permission` whose ``reason``
is the sentence the page shows instead of a button and the command prints on exit 2.

Roles (issue 35), kept in the workspace and granted with ``opstudio users grant EMAIL ROLE``:

==========  ==========================================================================================
viewer      opens datasets, saved views, decisions and records
analyst     a viewer's actions, plus upload, connect to server data, save views, store records, propose
approver    a viewer's actions, plus store records, approve, reject, deploy and retire decisions
admin       every action, and manages grants from the dashboard
==========  ==========================================================================================

An identity may hold several roles; its actions are their union. The checks, in order:

1. **role** — no role: nothing (default deny); a role without the action: refused, naming who can;
2. **private data** — a private dataset is visible only to the identities that added its bytes,
   and so are the views, decisions and records that read it; a private view only to its owner;
   a decision is reviewed by others, so it is never proposed on a private dataset;
3. **status** — a transition only from its status (:data:`~engine.workspace.TRANSITIONS`), naming
   who moved the decision on and when;
4. **four-eyes** — nobody approves, rejects or deploys a decision they proposed (retiring one is
   allowed: taking a threshold out of service must not wait for a second person).

**Single-user mode** (a workspace without any grant, and no logins): the one identity holds every
role and four-eyes does not apply — there is no second person; the history then names the same
identity for the proposal and the approval, which a reviewer sees. A workspace with grants is in
team mode for the command line too (``--as EMAIL``), and four-eyes always applies there.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ..errors import InputError
from ._decisions import TRANSITIONS, refusal
from ._objects import Dataset, Decision, Record, View

__all__ = [
    "ROLES",
    "ACTIONS",
    "POWERS",
    "FOUR_EYES",
    "Identity",
    "Permission",
    "AccessError",
    "may",
    "identity_name",
]

ROLES = ("viewer", "analyst", "approver", "admin")
#: every action, with the words a refusal uses for it
ACTIONS = {
    "open_dataset": "open datasets",
    "open_view": "open saved views",
    "open_decision": "open decisions",
    "open_record": "open records",
    "upload": "upload datasets",
    "connect": "connect to server data",
    "save_view": "save views",
    "save_record": "store records",
    "propose": "propose decisions",
    "approve": "approve decisions",
    "reject": "reject decisions",
    "deploy": "deploy decisions",
    "retire": "retire decisions",
    "manage_grants": "manage grants",
}
_OPEN = frozenset({"open_dataset", "open_view", "open_decision", "open_record"})
#: the actions of each role
POWERS = {
    "viewer": _OPEN,
    "analyst": _OPEN | {"upload", "connect", "save_view", "save_record", "propose"},
    "approver": _OPEN | {"save_record", "approve", "reject", "deploy", "retire"},
    "admin": frozenset(ACTIONS),
}
#: the actions nobody takes on a decision they proposed
FOUR_EYES = ("approve", "reject", "deploy")
_NAME = re.compile(r"[^\s\x00-\x1f\x7f]{1,320}")


class AccessError(InputError):
    """An identity may not do what it asked (the message is :attr:`Permission.reason`)."""


def identity_name(text: str) -> str:
    """An identity as the workspace stores it: trimmed and lower-cased (e-mail addresses compare so).

    Parameters
    ----------
    text : str
        An e-mail address, an OpenID ``sub``, an operating-system user or ``local``.

    Returns
    -------
    str

    Raises
    ------
    InputError
        Empty, longer than 320 characters, or with spaces or control characters.
    """
    name = str(text).strip().lower()
    if not _NAME.fullmatch(name):
        raise InputError(
            f"{str(text)[:80]!r} is not an identity; give an e-mail address (or a login's subject) without spaces."
        )
    return name


@dataclass(frozen=True)
class Identity:
    """Who acts: a name and its roles.

    Attributes
    ----------
    name : str
        The identity (:func:`identity_name`): an e-mail, a login's subject, an OS user or ``local``.
    roles : frozenset of str
        Its roles (:data:`ROLES`).
    single_user : bool
        Single-user mode: every role, no four-eyes (see the module docstring).
    """

    name: str
    roles: frozenset = frozenset()
    single_user: bool = False


@dataclass(frozen=True)
class Permission:
    """The answer of :func:`may`: true when allowed, else false with the reason.

    Attributes
    ----------
    allowed : bool
        Whether the action is allowed.
    reason : str
        Why not, as one sentence for people (empty when allowed).
    """

    allowed: bool
    reason: str = ""

    def __bool__(self) -> bool:
        return self.allowed

    def check(self) -> None:
        """Raise :class:`AccessError` with the reason unless allowed."""
        if not self.allowed:
            raise AccessError(self.reason)


def _role_problem(identity: Identity, action: str) -> str | None:
    if not identity.roles:
        return (
            f"{identity.name} has no role in this workspace; an admin must grant one "
            f"(opstudio users grant {identity.name} viewer)."
        )
    if any(action in POWERS[r] for r in identity.roles if r in POWERS):
        return None
    held = " and ".join(f"{'an' if r[0] in 'aeiou' else 'a'} {r}" for r in ROLES if r in identity.roles)
    able = [f"{r}s" for r in ROLES if action in POWERS[r]]
    return f"{identity.name} is {held}: only {' and '.join(able)} can {ACTIONS[action]}."


def _shas_of(obj, datasets: Mapping[str, Dataset]) -> list[str]:
    if isinstance(obj, Dataset):
        return [obj.sha256]
    if isinstance(obj, (View, Decision)):
        return list(obj.datasets)
    if isinstance(obj, Record):
        return [obj.dataset_sha256] if obj.dataset_sha256 else []
    return list(datasets)


def _privacy_problem(identity: Identity, action: str, obj, datasets: Mapping[str, Dataset]) -> str | None:
    if isinstance(obj, View) and obj.private and obj.owner != identity.name:
        return f"view {obj.id} is private to its owner."
    for sha in _shas_of(obj, datasets):
        dataset = obj if isinstance(obj, Dataset) else datasets.get(sha)
        if dataset is None:
            return f"dataset {sha[:12]}… is not in this workspace."
        if dataset.private and identity.name not in dataset.holders and identity.name != dataset.owner:
            what = "this dataset is" if obj is dataset else f"it reads dataset {sha[:12]}…, which is"
            return f"{what} private to the people who added it."
        if action == "propose" and dataset.private:
            return (
                f"dataset {sha[:12]}… is private, and a decision is reviewed by others: share the dataset "
                "before proposing a decision on it."
            )
    return None


def _decision_problem(identity: Identity, action: str, obj) -> str | None:
    if not isinstance(obj, Decision):
        raise InputError(f"{action} acts on a decision, not on {type(obj).__name__}.")
    last = obj.history[-1] if obj.history else None
    problem = refusal(obj.id, action, obj.status, last.by if last else "?", last.at if last else "?")
    if problem:
        return problem
    if action in FOUR_EYES and obj.proposed_by == identity.name and not identity.single_user:
        return f"{identity.name} proposed decision {obj.id}; four-eyes: another approver must {action} it."
    return None


def may(
    identity: Identity, action: str, obj: object = None, *, datasets: Mapping[str, Dataset] | Iterable[Dataset] = ()
) -> Permission:
    """May ``identity`` do ``action`` (on ``obj``)?

    Parameters
    ----------
    identity : Identity
        Who acts.
    action : str
        A key of :data:`ACTIONS`.
    obj : Dataset, View, Decision or Record, optional
        What it acts on: the dataset, view, decision or record opened; the decision approved,
        rejected, deployed or retired. None for upload, connect, save_view, propose and manage_grants.
    datasets : mapping of str to Dataset, or iterable of Dataset
        The datasets involved: those a view, decision or record reads (to check their privacy), or,
        without ``obj``, those a view would be saved on or a decision proposed on.

    Returns
    -------
    Permission
        True when allowed; else false with the reason, naming who can, whose data it is, or who
        acted on the decision and when.

    Raises
    ------
    InputError
        ``action`` is not a key of :data:`ACTIONS`, or a transition is asked of something that is not a decision.
    """
    if action not in ACTIONS:
        raise InputError(f"unknown action {action!r}; actions are {', '.join(ACTIONS)}.")
    if not isinstance(datasets, Mapping):
        datasets = {d.sha256: d for d in datasets}
    problem = _role_problem(identity, action) or _privacy_problem(identity, action, obj, datasets)
    if problem is None and action in TRANSITIONS:
        problem = _decision_problem(identity, action, obj)
    return Permission(problem is None, problem or "")
