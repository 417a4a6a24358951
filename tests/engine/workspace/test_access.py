"""engine.workspace.access.may against a table written out by hand: every action x role x ownership.

Ownership columns: ``own`` (the identity added the dataset, saved the view, proposed the decision, or
the data it reads is its own), ``shared`` (someone else's, shared with the team), ``private``
(someone else's private dataset, or a view or decision reading one; a private view of someone else).
For transitions the decision is in the status the action starts from, so only role, privacy and
four-eyes decide.
"""

from __future__ import annotations

import pytest

from engine.errors import InputError
from engine.workspace import ACTIONS, ROLES, TRANSITIONS, Dataset, Decision, Event, Identity, Record, View, may
from engine.workspace.access import identity_name

ME, OTHER = "me@example.org", "other@example.org"

# Y allowed, . refused; three letters per role: own, shared, private
#                  viewer analyst approver admin none single
TABLE = """
open_dataset        YY.    YY.      YY.     YY.   ...  YY.
open_view           YY.    YY.      YY.     YY.   ...  YY.
open_decision       YY.    YY.      YY.     YY.   ...  YY.
open_record         YY.    YY.      YY.     YY.   ...  YY.
upload              ...    YYY      ...     YYY   ...  YYY
connect             ...    YYY      ...     YYY   ...  YYY
save_view           ...    YY.      ...     YY.   ...  YY.
save_record         ...    YY.      YY.     YY.   ...  YY.
propose             ...    YY.      ...     YY.   ...  YY.
approve             ...    ...      .Y.     .Y.   ...  YY.
reject              ...    ...      .Y.     .Y.   ...  YY.
deploy              ...    ...      .Y.     .Y.   ...  YY.
retire              ...    ...      YY.     YY.   ...  YY.
manage_grants       ...    ...      ...     YYY   ...  YYY
"""
COLUMNS = ("viewer", "analyst", "approver", "admin", "none", "single")
OWNERSHIP = ("own", "shared", "private")


def _table() -> dict[tuple[str, str, str], bool]:
    out = {}
    for line in TABLE.strip().splitlines():
        action, *cells = line.split()
        for column, cell in zip(COLUMNS, cells, strict=True):
            for ownership, mark in zip(OWNERSHIP, cell, strict=True):
                out[action, column, ownership] = mark == "Y"
    return out


EXPECTED = _table()


def _identity(column: str) -> Identity:
    if column == "single":
        return Identity(ME, frozenset(ROLES), single_user=True)
    return Identity(ME, frozenset() if column == "none" else frozenset({column}))


def _dataset(ownership: str, private: bool | None = None) -> Dataset:
    owner = ME if ownership == "own" else OTHER
    private = ownership == "private" if private is None else private
    sha = {"own": "a", "shared": "b", "private": "c"}[ownership] * 64
    return Dataset(sha, f"{ownership}.csv", "rated", 10, 100, owner, private, "2025-01-01T00:00:00.000000Z", (owner,))


_START = {action: start for action, (start, _) in TRANSITIONS.items()}


def _decision(ownership: str, status: str) -> Decision:
    by = ME if ownership == "own" else OTHER
    data = _dataset(ownership)
    proposed = Event(1, 1, "proposed", by, "2025-01-01T00:00:00.000000Z", "", "h" * 64, "0" * 64, "e" * 64)
    return Decision(
        1,
        "d",
        "operating_point",
        status,
        "score",
        0.5,
        0.3,
        1.0,
        2.0,
        {},
        (data.sha256,),
        {},
        "",
        by,
        "2025-01-01T00:00:00.000000Z",
        "h" * 64,
        (proposed,),
    )


def _case(action: str, ownership: str):
    """(obj, datasets) for one cell of the table."""
    data = _dataset(ownership)
    if action == "open_dataset":
        return data, [data]
    if action == "open_view":
        owner = ME if ownership == "own" else OTHER
        view = View(3, "operating-point", {}, (data.sha256,), owner, ownership == "private", "t")
        shared = _dataset(ownership, private=False)  # the private view's data is shared: the view's flag decides
        return view, [shared if ownership == "private" else data]
    if action == "open_decision":
        return _decision(ownership, "proposed"), [data]
    if action == "open_record":
        return Record(4, "audit_design", "k", {}, "s" * 64, data.sha256, None, data.owner, "t"), [data]
    if action in _START:
        return _decision(ownership, _START[action]), [data]
    if action in ("save_view", "save_record", "propose"):
        return None, [data]
    return None, []


@pytest.mark.parametrize("ownership", OWNERSHIP)
@pytest.mark.parametrize("column", COLUMNS)
@pytest.mark.parametrize("action", list(ACTIONS))
def test_every_action_role_and_ownership_matches_the_table(action, column, ownership):
    obj, datasets = _case(action, ownership)
    permission = may(_identity(column), action, obj, datasets=datasets)
    assert bool(permission) is EXPECTED[action, column, ownership], permission.reason
    assert (permission.reason == "") is permission.allowed


def test_the_table_covers_every_action_and_role():
    assert {a for a, _, _ in EXPECTED} == set(ACTIONS)
    assert set(COLUMNS) - {"none", "single"} == set(ROLES)


def test_reasons_name_who_can_and_why():
    viewer = Identity(ME, frozenset({"viewer"}))
    assert may(viewer, "approve", _decision("shared", "proposed")).reason == (
        "me@example.org is a viewer: only approvers and admins can approve decisions."
    )
    nobody = may(Identity(ME), "open_view", None).reason
    assert "has no role" in nobody and "opstudio users grant me@example.org viewer" in nobody
    approver = Identity(ME, frozenset({"approver", "analyst"}))
    four_eyes = may(approver, "approve", _decision("own", "proposed"), datasets=[_dataset("own")]).reason
    assert four_eyes == "me@example.org proposed decision 1; four-eyes: another approver must approve it."
    private = may(approver, "open_dataset", _dataset("private")).reason
    assert private == "this dataset is private to the people who added it."
    view = View(3, "audit", {}, (_dataset("private").sha256,), OTHER, False, "t")
    assert (
        "reads dataset cccccccccccc…, which is private"
        in may(approver, "open_view", view, datasets=[_dataset("private")]).reason
    )
    assert may(approver, "open_view", View(3, "audit", {}, (), OTHER, True, "t")).reason == (
        "view 3 is private to its owner."
    )


def test_a_decision_is_never_proposed_on_a_private_dataset_even_ones_own():
    mine = _dataset("own", private=True)
    reason = may(Identity(ME, frozenset({"analyst"})), "propose", datasets=[mine]).reason
    assert "is private, and a decision is reviewed by others" in reason


def test_a_holder_of_private_bytes_sees_them():
    data = Dataset("c" * 64, "x", "rated", 1, 1, OTHER, True, "t", (OTHER, ME))
    assert may(Identity(ME, frozenset({"viewer"})), "open_dataset", data)


@pytest.mark.parametrize("status", ["proposed", "approved", "rejected", "deployed", "retired"])
@pytest.mark.parametrize("action", list(TRANSITIONS))
def test_a_transition_only_from_its_status_naming_who_acted_and_when(action, status):
    decision = _decision("shared", status)
    last = Event(1, 2, status, "bob@example.org", "2025-02-03T04:05:06.000000Z", "", "h" * 64, "e" * 64, "f" * 64)
    decision = Decision(**{**decision.__dict__, "history": (*decision.history, last)})
    permission = may(Identity(ME, frozenset({"admin"})), action, decision, datasets=[_dataset("shared")])
    assert bool(permission) is (status == TRANSITIONS[action][0])
    if not permission:
        assert permission.reason == (
            f"decision 1 is {status} (by bob@example.org at 2025-02-03T04:05:06.000000Z); only a "
            f"{TRANSITIONS[action][0]} decision can be {TRANSITIONS[action][1]}."
        )


def test_a_dataset_missing_from_the_workspace_refuses():
    reason = may(Identity(ME, frozenset({"viewer"})), "open_decision", _decision("shared", "proposed")).reason
    assert reason == f"dataset {'b' * 12}… is not in this workspace."


def test_unknown_actions_and_transitions_on_other_objects_are_errors():
    with pytest.raises(InputError, match="unknown action 'fly'"):
        may(Identity(ME, frozenset(ROLES)), "fly")
    with pytest.raises(InputError, match="acts on a decision"):
        may(Identity(ME, frozenset(ROLES)), "approve", None)


def test_permission_check_raises_the_reason():
    from engine.workspace import AccessError

    with pytest.raises(AccessError, match="has no role"):
        may(Identity(ME), "upload").check()
    may(Identity(ME, frozenset({"analyst"})), "upload").check()


@pytest.mark.parametrize(
    "text, name", [(" Ana@Example.ORG ", "ana@example.org"), ("local", "local"), ("sub|12345", "sub|12345")]
)
def test_identity_names_are_trimmed_and_lower_cased(text, name):
    assert identity_name(text) == name


@pytest.mark.parametrize("text", ["", "  ", "ana smith@x", "a\x00b", "x" * 321])
def test_bad_identities_are_refused(text):
    with pytest.raises(InputError, match="is not an identity"):
        identity_name(text)
