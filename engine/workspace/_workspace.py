"""The workspace: datasets, saved views, decisions, records and roles in one database and one dataset store.

Every method takes the :class:`~engine.workspace.access.Identity` that acts and asks
:func:`~engine.workspace.access.may` before reading or writing, so a caller that forgets to
check is refused all the same (:class:`~engine.workspace.access.AccessError`, an
:class:`~engine.errors.InputError`). Objects come back as frozen records (:mod:`._objects`) with
their links.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from sqlalchemy import exists, func, select
from sqlalchemy.orm import Session

from ..errors import InputError
from ._canonical import canonical, read_canonical, sha256_text
from ._config import Settings, redacted_url, settings_from_env
from ._database import connect, ensure_schema, read_session, schema_revision, write_once_more, write_session
from ._decisions import STATUSES, TRANSITIONS, now, verify_chains
from ._models import (
    DatasetRow,
    DecisionDatasetRow,
    DecisionRow,
    EventRow,
    GrantRow,
    RecordRow,
    UploadRow,
    ViewDatasetRow,
    ViewRow,
)
from ._objects import Dataset, Decision, Record, User, Verification, View
from ._registry import decision_values, load_decisions, propose_decision, transition
from ._store import DatasetStore, size_message
from .access import ROLES, Identity, Permission, identity_name, may

__all__ = ["Workspace", "open_workspace"]

_KIND = re.compile(r"[a-z][a-z0-9_]{0,63}")
#: bytes read to guess the kind of a dataset too large to parse
_HEAD = 2**20


def _dataset(row: DatasetRow, holders: Sequence[str]) -> Dataset:
    return Dataset(
        row.sha256,
        row.name,
        row.kind,
        row.rows,
        row.bytes,
        row.owner,
        bool(row.private),
        row.created_at,
        tuple(holders),
    )


def _record(row: RecordRow) -> Record:
    body = read_canonical(row.body, f"record {row.id}")
    return Record(
        row.id,
        row.kind,
        row.key,
        body,
        row.sha256,
        row.dataset_sha256,
        row.decision_id,
        row.created_by,
        row.created_at,
    )


def _table_facts(data: bytes, name: str, kind: str | None) -> tuple[str, int | None]:
    """The kind (given or guessed) and row count of a dataset's bytes; a tabular kind must parse as a table."""
    from ..io import INPUT_KINDS, guess_kind, read_table

    if kind is not None and kind not in INPUT_KINDS:
        raise InputError(f"unknown dataset kind {kind!r}; kinds are {', '.join(INPUT_KINDS)}.")
    table, problem = None, None
    if kind is None or INPUT_KINDS[kind].tabular:
        try:
            table = read_table(data, name=name)
        except InputError as exc:
            problem = exc
    kind = kind or guess_kind(data, table)
    if INPUT_KINDS[kind].tabular and table is None:
        raise problem
    return kind, (len(table.frame) if table is not None else None)


class Workspace:
    """The studio's workspace: a database (SQLite or PostgreSQL) and a content-addressed dataset store.

    Parameters
    ----------
    settings : Settings
        Where the database and the store are (:func:`engine.workspace.settings_from_env`).

    Attributes
    ----------
    settings : Settings
        As given.
    schema_before : str or None
        The database's schema revision before it was opened (None: it was created).
    schema_version : str
        Its revision now (the newest this studio ships).

    Notes
    -----
    Opening a workspace creates the database, or upgrades it to this studio's schema, when needed.
    """

    def __init__(self, settings: Settings):
        self.settings = settings
        self.engine = connect(settings.database_url)
        self.store = DatasetStore(settings.datasets, settings.max_dataset_bytes)
        #: the schema revision found on opening (None: a new database), and the one in use
        self.schema_before, self.schema_version = ensure_schema(self.engine)

    def close(self) -> None:
        """Close the database connections."""
        self.engine.dispose()

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # --- who acts -----------------------------------------------------------------------------------------------

    def identity(self, name: str | None = None, *, team: bool | None = None) -> Identity:
        """The identity ``name`` with its roles (``local`` when None).

        Parameters
        ----------
        name : str, optional
            A login's e-mail (or subject), an operating-system user, or None for ``local``.
        team : bool, optional
            True: team mode whatever the grants (a dashboard with logins: nobody gets a role they were not
            granted, even in a workspace without grants). None: team mode once the workspace has a grant.

        Returns
        -------
        Identity
            Single-user mode (every role, no four-eyes) in a workspace without grants unless ``team``;
            otherwise the roles granted to ``name`` (none: every action is refused, default deny).
        """
        name = identity_name(name or "local")
        with read_session(self.engine) as s:
            if not team and not s.scalar(select(exists().select_from(GrantRow))):
                return Identity(name, frozenset(ROLES), single_user=True)
            roles = s.scalars(select(GrantRow.role).where(GrantRow.email == name))
            return Identity(name, frozenset(roles))

    def grant(self, email: str, role: str, by: Identity) -> User:
        """Give ``email`` the role ``role`` (kept when it has it already).

        Parameters
        ----------
        email : str
            The identity to grant.
        role : str
            One of :data:`~engine.workspace.access.ROLES`.
        by : Identity
            Who grants (an admin; the command line acts as the server's operator).

        Returns
        -------
        User
            ``email`` with all its roles.
        """
        may(by, "manage_grants").check()
        email = identity_name(email)
        if role not in ROLES:
            raise InputError(f"unknown role {role!r}; roles are {', '.join(ROLES)}.")
        with write_session(self.engine) as s:
            if s.get(GrantRow, (email, role)) is None:
                s.add(GrantRow(email=email, role=role, granted_by=by.name, granted_at=now()))
        return next(u for u in self.users() if u.email == email)

    def revoke(self, email: str, role: str | None, by: Identity) -> list[str]:
        """Take ``role`` (every role when None) from ``email``.

        Parameters
        ----------
        email : str
        role : str or None
        by : Identity
            Who revokes (an admin).

        Returns
        -------
        list of str
            The roles taken.

        Raises
        ------
        InputError
            ``email`` does not have that role (or any role).
        """
        may(by, "manage_grants").check()
        email = identity_name(email)
        with write_session(self.engine) as s:
            query = select(GrantRow).where(GrantRow.email == email)
            rows = list(s.scalars(query if role is None else query.where(GrantRow.role == role)))
            if not rows:
                raise InputError(f"{email} has {'no role' if role is None else f'no role {role!r}'} to revoke.")
            for row in rows:
                s.delete(row)
        return [r for r in ROLES if r in {row.role for row in rows}]

    def users(self) -> list[User]:
        """Every identity with a role, by name.

        Returns
        -------
        list of User
        """
        with read_session(self.engine) as s:
            rows = list(s.scalars(select(GrantRow).order_by(GrantRow.email, GrantRow.granted_at)))
        users: dict[str, list[GrantRow]] = {}
        for row in rows:
            users.setdefault(row.email, []).append(row)
        return [
            User(
                email,
                tuple(r for r in ROLES if r in {g.role for g in grants}),
                grants[-1].granted_by,
                grants[-1].granted_at,
            )
            for email, grants in users.items()
        ]

    def may(self, identity: Identity, action: str, obj: object = None, datasets: Iterable[str] = ()) -> Permission:
        """:func:`~engine.workspace.access.may`, with the datasets of ``obj`` (or ``datasets``) read from the workspace.

        Parameters
        ----------
        identity : Identity
        action : str
        obj : Dataset, View, Decision or Record, optional
        datasets : iterable of str
            SHA-256 of the datasets a view would be saved on or a decision proposed on (without ``obj``).

        Returns
        -------
        Permission
        """
        shas = list(getattr(obj, "datasets", ())) + list(datasets)
        if getattr(obj, "dataset_sha256", None):
            shas.append(obj.dataset_sha256)
        with read_session(self.engine) as s:
            return may(identity, action, obj, datasets=self._datasets_of(s, shas))

    # --- datasets -----------------------------------------------------------------------------------------------

    def _datasets_of(self, session: Session, shas: Iterable[str]) -> dict[str, Dataset]:
        shas = sorted(set(shas))
        if not shas:
            return {}
        rows = session.scalars(select(DatasetRow).where(DatasetRow.sha256.in_(shas)))
        uploads = session.execute(
            select(UploadRow.sha256, UploadRow.by).where(UploadRow.sha256.in_(shas)).order_by(UploadRow.id)
        )
        holders: dict[str, list[str]] = {}
        for sha, by in uploads:
            holders.setdefault(sha, []).append(by)
        return {r.sha256: _dataset(r, holders.get(r.sha256, [r.owner])) for r in rows}

    def _read_source(self, source, name: str | None) -> tuple[bytes | None, Any, str, int]:
        """(the bytes when small enough to parse, an open stream, the name, the size); refuses too large a file."""
        from ..io._tables import MAX_UPLOAD_BYTES

        if isinstance(source, (bytes, bytearray)):
            data = bytes(source)
            name = name or "upload"
            size = len(data)
        else:
            path = Path(source)
            if not path.is_file():
                what = "is a folder, not a file" if path.is_dir() else "does not exist"
                raise InputError(f"File '{path}' {what}. Check the path.")
            name, size = name or path.name, path.stat().st_size
            data = path.read_bytes() if size <= min(MAX_UPLOAD_BYTES, self.store.max_bytes) else None
        if size > self.store.max_bytes:
            raise InputError(size_message(name, size, self.store.max_bytes))
        stream = io.BytesIO(data) if data is not None else open(source, "rb")  # noqa: SIM115
        return data, stream, name, size

    def add_dataset(
        self, source, identity: Identity, *, name: str | None = None, kind: str | None = None, private: bool = False
    ) -> Dataset:
        """Store a file's bytes (once, by SHA-256) and register it as a dataset.

        Parameters
        ----------
        source : bytes, str or os.PathLike
            The bytes, or a file's path.
        identity : Identity
            Who adds it (needs ``upload``).
        name : str, optional
            A name (default: the file's name, or ``upload``).
        kind : str, optional
            A key of :data:`engine.io.INPUT_KINDS` (default: guessed by :func:`engine.io.guess_kind`). Tabular
            kinds must parse as a table (:func:`engine.io.read_table`), which gives the row count.
        private : bool
            Visible only to the identities that add these bytes.

        Returns
        -------
        Dataset
            The dataset; when the bytes were there already, as first added (its name, kind, owner and
            privacy stay), with ``identity`` now among its holders.

        Raises
        ------
        InputError
            Not allowed, over ``OPSTUDIO_MAX_DATASET_MB``, an unknown kind, or a tabular kind that does not parse.
        """
        may(identity, "upload").check()
        data, stream, name, size = self._read_source(source, name)
        name = name[:255]
        with stream:
            if data is not None:
                kind, rows = _table_facts(data, name, kind)
            else:  # too large to parse: the kind from the first bytes, no row count
                from ..io import guess_kind

                kind, rows = kind or guess_kind(stream.read(_HEAD)), None
                stream.seek(0)
            sha, size = self.store.put(stream, name)
        write_once_more(self.engine, lambda s: self._register(s, sha, name, kind, rows, size, identity.name, private))
        return self.dataset(sha, identity)

    @staticmethod
    def _register(s: Session, sha, name, kind, rows, size, by: str, private: bool) -> None:
        if s.get(DatasetRow, sha) is None:
            s.add(
                DatasetRow(
                    sha256=sha,
                    name=name,
                    kind=kind,
                    rows=rows,
                    bytes=size,
                    owner=by,
                    created_at=now(),
                    private=private,
                )
            )
            s.flush()
        if s.scalar(select(UploadRow.id).where(UploadRow.sha256 == sha, UploadRow.by == by)) is None:
            s.add(UploadRow(sha256=sha, by=by, name=name, at=now()))

    def dataset(self, sha256: str, identity: Identity) -> Dataset:
        """A dataset by its SHA-256 or a unique prefix of it (at least 8 hex digits).

        Parameters
        ----------
        sha256 : str
        identity : Identity
            Who opens it (private datasets are invisible to others: "not in this workspace").

        Returns
        -------
        Dataset

        Raises
        ------
        InputError
            No such dataset visible to ``identity``, or a prefix shared by several.
        """
        ref = str(sha256).strip().lower()
        if not re.fullmatch(r"[0-9a-f]{8,64}", ref):
            raise InputError(f"{ref[:80]!r} is not a dataset's SHA-256 (or a prefix of at least 8 hex digits).")
        with read_session(self.engine) as s:
            shas = list(s.scalars(select(DatasetRow.sha256).where(DatasetRow.sha256.startswith(ref)).limit(50)))
            found = self._datasets_of(s, shas)
        visible = [d for d in found.values() if may(identity, "open_dataset", d)]
        if len(visible) > 1:
            raise InputError(f"{ref} is the start of {len(visible)} datasets' SHA-256; give more digits.")
        if not visible:
            may(identity, "open_dataset").check()  # no role: say so rather than "not found"
            raise InputError(f"there is no dataset {ref[:12]}… in this workspace; add it with `opstudio datasets add`.")
        return visible[0]

    def dataset_bytes(self, sha256: str, identity: Identity) -> bytes:
        """A dataset's bytes from the store, checked against its SHA-256.

        Parameters
        ----------
        sha256 : str
            The SHA-256 (or a unique prefix).
        identity : Identity
            Who reads them (private datasets' bytes are never sent to others).

        Returns
        -------
        bytes
        """
        return self.store.get(self.dataset(sha256, identity).sha256)

    def datasets(self, identity: Identity, kind: str | None = None) -> list[Dataset]:
        """The datasets ``identity`` may open, newest first.

        Parameters
        ----------
        identity : Identity
        kind : str, optional
            Only datasets of this kind.

        Returns
        -------
        list of Dataset
        """
        may(identity, "open_dataset").check()
        with read_session(self.engine) as s:
            query = select(DatasetRow.sha256).order_by(DatasetRow.created_at.desc())
            shas = list(s.scalars(query if kind is None else query.where(DatasetRow.kind == kind)))
            found = self._datasets_of(s, shas)
        return [found[sha] for sha in shas if may(identity, "open_dataset", found[sha])]

    def set_dataset_private(self, sha256: str, private: bool, identity: Identity) -> Dataset:
        """Share a dataset with the team, or make it private again (its owner only).

        Parameters
        ----------
        sha256 : str
        private : bool
        identity : Identity
            The dataset's owner.

        Returns
        -------
        Dataset
        """
        dataset = self.dataset(sha256, identity)
        may(identity, "upload").check()
        if dataset.owner != identity.name:
            raise InputError(
                f"only {dataset.owner}, who added dataset {dataset.sha256[:12]}… first, can change who sees it."
            )
        with write_session(self.engine) as s:
            s.get(DatasetRow, dataset.sha256).private = private
        return self.dataset(dataset.sha256, identity)

    # --- views --------------------------------------------------------------------------------------------------

    def _view(self, s: Session, row: ViewRow) -> View:
        shas = s.scalars(
            select(ViewDatasetRow.sha256).where(ViewDatasetRow.view_id == row.id).order_by(ViewDatasetRow.position)
        )
        return View(
            row.id,
            row.page,
            read_canonical(row.settings, f"view {row.id}'s settings"),
            tuple(shas),
            row.owner,
            bool(row.private),
            row.created_at,
            f"{self.settings.public_url}/{row.page}?view={row.id}",
        )

    def save_view(
        self, page: str, settings: Mapping, datasets: Sequence[str], identity: Identity, *, private: bool = False
    ) -> View:
        """Save a page's settings and the datasets it reads; the same view saved twice is one view.

        Parameters
        ----------
        page : str
            The page's URL path (:data:`engine.pages.PAGES`, ``"operating-point"``).
        settings : mapping
            Everything the page needs to draw the view again (JSON values).
        datasets : sequence of str
            SHA-256 of the datasets it reads (in the workspace), in the page's order.
        identity : Identity
            Who saves it (needs ``save_view`` and to see every dataset).
        private : bool
            Only its owner may open it.

        Returns
        -------
        View
            With its permanent link ``$OPSTUDIO_PUBLIC_URL/<page>?view=<id>``.
        """
        from ..pages import page_for

        page = page_for(page).url_path
        text = canonical(dict(settings), "the view's settings")
        shas = [self.dataset(sha, identity).sha256 for sha in datasets]
        self.may(identity, "save_view", datasets=shas).check()
        private = bool(private)
        digest = sha256_text(canonical([page, text, shas, identity.name, private]))

        def save(s: Session) -> View:
            row = s.scalars(select(ViewRow).where(ViewRow.sha256 == digest)).first()
            if row is None:
                row = ViewRow(
                    sha256=digest, page=page, settings=text, owner=identity.name, created_at=now(), private=private
                )
                s.add(row)
                s.flush()
                s.add_all(ViewDatasetRow(view_id=row.id, position=i, sha256=h) for i, h in enumerate(shas))
            return self._view(s, row)

        return write_once_more(self.engine, save)

    def view(self, view_id: int, identity: Identity) -> View:
        """A saved view, for an identity that may open it.

        Parameters
        ----------
        view_id : int
        identity : Identity

        Returns
        -------
        View

        Raises
        ------
        AccessError
            A private view of someone else, or one that reads a dataset private to others.
        InputError
            No such view.
        """
        with read_session(self.engine) as s:
            row = s.get(ViewRow, _id(view_id, "view"))
            if row is None:
                may(identity, "open_view").check()
                raise InputError(f"there is no view {view_id} in this workspace.")
            view = self._view(s, row)
            may(identity, "open_view", view, datasets=self._datasets_of(s, view.datasets)).check()
        return view

    # --- decisions ----------------------------------------------------------------------------------------------

    def propose(
        self,
        identity: Identity,
        *,
        kind: str,
        classifier: str,
        threshold: Any,
        datasets: Sequence[str],
        target: float | None = None,
        tp: float | None = None,
        fp: float | None = None,
        settings: Mapping | None = None,
        evidence: Mapping | None = None,
        note: str = "",
        name: str | None = None,
    ) -> Decision:
        """Propose a decision (status ``proposed``; its first event carries the hash of its content).

        Parameters
        ----------
        identity : Identity
            The proposer (needs ``propose``; the datasets must be shared).
        kind : str
            A key of :data:`~engine.workspace.DECISION_KINDS`.
        classifier : str
            The model or score column.
        threshold : float, list or dict
            The threshold, joint thresholds (list), per-segment thresholds (dict) or the rule's parameters.
        datasets : sequence of str
            SHA-256 (or unique prefixes) of the datasets it was computed on; at least one.
        target : float, optional
            The target marginal precision in (0, 1).
        tp, fp : float, optional
            Rated true and false positives flagged at the decision's point.
        settings : mapping, optional
            Everything else that defines it (JSON values).
        evidence : mapping, optional
            What supports it: ``{"view": <view id>, "records": [<record ids>], ...}``.
        note : str
            The proposer's note.
        name : str, optional
            Default ``"<classifier> at marginal precision <target>"``.

        Returns
        -------
        Decision
        """
        if not datasets:
            raise InputError("a decision names the dataset(s) it was computed on; give at least one.")
        shas = [self.dataset(sha, identity).sha256 for sha in datasets]
        self.may(identity, "propose", datasets=shas).check()
        if evidence and "view" in evidence:
            self.view(evidence["view"], identity)
        values = decision_values(
            identity,
            kind=kind,
            classifier=classifier,
            threshold=threshold,
            target=target,
            tp=tp,
            fp=fp,
            settings=settings,
            evidence=evidence,
            note=note,
            name=name,
        )
        with write_session(self.engine) as s:
            decision_id = propose_decision(s, values, shas)
        return self.decision(decision_id, identity)

    def act(self, decision_id: int, action: str, identity: Identity, note: str = "") -> Decision:
        """Approve, reject, deploy or retire a decision: one event, appended to its chain.

        Parameters
        ----------
        decision_id : int
        action : str
            ``approve``, ``reject``, ``deploy`` or ``retire`` (:data:`~engine.workspace.TRANSITIONS`).
        identity : Identity
            Who acts (checked by :func:`~engine.workspace.access.may`: role, four-eyes, status).
        note : str
            Their note.

        Returns
        -------
        Decision
            With the new event last in its history.

        Raises
        ------
        AccessError
            Not allowed; or someone else moved the decision on first (the message names them and when).
        """
        if action not in TRANSITIONS:
            raise InputError(f"unknown action {action!r}; give one of {', '.join(TRANSITIONS)}.")
        decision_id = _id(decision_id, "decision")
        public = self.settings.public_url
        write_once_more(
            self.engine, lambda s: transition(s, decision_id, action, identity, note, self._datasets_of, public)
        )
        return self.decision(decision_id, identity)

    def decision(self, decision_id: int, identity: Identity) -> Decision:
        """A decision with its history.

        Parameters
        ----------
        decision_id : int
        identity : Identity
            Who opens it (refused when it reads a dataset private to others).

        Returns
        -------
        Decision
        """
        with read_session(self.engine) as s:
            row = s.get(DecisionRow, _id(decision_id, "decision"))
            if row is None:
                may(identity, "open_decision").check()
                raise InputError(f"there is no decision {decision_id} in this workspace.")
            decision = load_decisions(s, [row], self.settings.public_url)[0]
            may(identity, "open_decision", decision, datasets=self._datasets_of(s, decision.datasets)).check()
        return decision

    def decisions(
        self,
        identity: Identity,
        *,
        status: str | None = None,
        kind: str | None = None,
        classifier: str | None = None,
        since: str | None = None,
        until: str | None = None,
    ) -> list[Decision]:
        """The decisions ``identity`` may open, newest first, filtered.

        Parameters
        ----------
        identity : Identity
        status : str, optional
            One of :data:`~engine.workspace.STATUSES`.
        kind : str, optional
            A key of :data:`~engine.workspace.DECISION_KINDS`.
        classifier : str, optional
            The model or score column.
        since, until : str, optional
            Proposed at or after ``since`` and before ``until`` (ISO dates or times, UTC: ``"2025-03-01"``).

        Returns
        -------
        list of Decision
        """
        may(identity, "open_decision").check()
        if status is not None and status not in STATUSES:
            raise InputError(f"unknown status {status!r}; statuses are {', '.join(STATUSES)}.")
        query = select(DecisionRow).order_by(DecisionRow.id.desc())
        for column, value in (("status", status), ("kind", kind), ("classifier", classifier)):
            if value is not None:
                query = query.where(getattr(DecisionRow, column) == value)
        if since is not None:
            query = query.where(DecisionRow.proposed_at >= str(since))
        if until is not None:
            query = query.where(DecisionRow.proposed_at < str(until))
        with read_session(self.engine) as s:
            found = load_decisions(s, list(s.scalars(query)), self.settings.public_url)
            datasets = self._datasets_of(s, [sha for d in found for sha in d.datasets])
        return [d for d in found if may(identity, "open_decision", d, datasets=datasets)]

    def verify(self) -> Verification:
        """Recompute every event's hash, every decision's content hash and every record's hash.

        Returns
        -------
        Verification
            The counts and the first mismatch (None when everything matches).
        """
        decision_cols = DecisionRow.__table__.columns
        event_cols = EventRow.__table__.columns
        with read_session(self.engine) as s:
            datasets: dict[int, list[str]] = {}
            for did, sha in s.execute(
                select(DecisionDatasetRow.decision_id, DecisionDatasetRow.sha256).order_by(
                    DecisionDatasetRow.decision_id, DecisionDatasetRow.position
                )
            ):
                datasets.setdefault(did, []).append(sha)
            decisions = s.execute(select(*decision_cols).order_by(DecisionRow.id)).mappings().all()
            events = s.execute(select(*event_cols).order_by(EventRow.decision_id, EventRow.seq)).mappings()
            result = verify_chains(decisions, events, datasets)
            records = s.execute(select(RecordRow.id, RecordRow.body, RecordRow.sha256).order_by(RecordRow.id)).all()
        problem = result.problem or next(
            (
                f"record {i} no longer matches its hash: the stored record was changed"
                for i, body, sha in records
                if sha256_text(body) != sha
            ),
            None,
        )
        return Verification(result.events, result.decisions, len(records), problem, result.head)

    # --- records ------------------------------------------------------------------------------------------------

    def add_record(
        self,
        kind: str,
        key: str,
        body: Any,
        identity: Identity,
        *,
        dataset_sha256: str | None = None,
        decision_id: int | None = None,
    ) -> Record:
        """Store a JSON record (an audit design keyed by its rows digest, monitoring alerts on a decision ...).

        Parameters
        ----------
        kind : str
            What it is: lowercase letters, digits and ``_`` (``"audit_design"``, ``"monitoring"``).
        key : str
            How it is looked up (at most 128 characters).
        body : Any
            JSON values (at most 4 MB as JSON).
        identity : Identity
            Who stores it (needs ``save_record``).
        dataset_sha256 : str, optional
            The dataset it belongs to.
        decision_id : int, optional
            The decision it is evidence for.

        Returns
        -------
        Record
            The same record stored before when kind, key, body, dataset and decision are all equal.
        """
        if not _KIND.fullmatch(str(kind)):
            raise InputError(f"record kind {str(kind)[:80]!r}: use lowercase letters, digits and _ (at most 64).")
        if not isinstance(key, str) or not 0 < len(key) <= 128:
            raise InputError("a record's key is text of 1 to 128 characters (e.g. the rows digest).")
        text = canonical(body, f"the {kind} record")
        sha = self.dataset(dataset_sha256, identity).sha256 if dataset_sha256 else None
        if decision_id is not None:
            self.decision(decision_id, identity)
        self.may(identity, "save_record", datasets=[sha] if sha else []).check()
        digest = sha256_text(text)
        with write_session(self.engine) as s:
            same = select(RecordRow).where(
                RecordRow.kind == kind,
                RecordRow.key == key,
                RecordRow.sha256 == digest,
                RecordRow.dataset_sha256.is_(None) if sha is None else RecordRow.dataset_sha256 == sha,
                RecordRow.decision_id.is_(None) if decision_id is None else RecordRow.decision_id == decision_id,
            )
            row = s.scalars(same).first()
            if row is None:
                row = RecordRow(
                    kind=kind,
                    key=key,
                    body=text,
                    sha256=digest,
                    dataset_sha256=sha,
                    decision_id=decision_id,
                    created_by=identity.name,
                    created_at=now(),
                )
                s.add(row)
                s.flush()
            return _record(row)

    def records(
        self,
        identity: Identity,
        *,
        kind: str | None = None,
        key: str | None = None,
        dataset_sha256: str | None = None,
        decision_id: int | None = None,
    ) -> list[Record]:
        """The records ``identity`` may open, newest first, filtered.

        Parameters
        ----------
        identity : Identity
        kind, key : str, optional
        dataset_sha256 : str, optional
            The full SHA-256 of the dataset they belong to.
        decision_id : int, optional

        Returns
        -------
        list of Record
        """
        may(identity, "open_record").check()
        query = select(RecordRow).order_by(RecordRow.id.desc())
        filters = {"kind": kind, "key": key, "dataset_sha256": dataset_sha256, "decision_id": decision_id}
        for column, value in filters.items():
            if value is not None:
                query = query.where(getattr(RecordRow, column) == value)
        with read_session(self.engine) as s:
            found = [_record(r) for r in s.scalars(query)]
            datasets = self._datasets_of(s, [r.dataset_sha256 for r in found if r.dataset_sha256])
            hidden = self._hidden_decisions(s, identity, {r.decision_id for r in found} - {None})
        return [r for r in found if r.decision_id not in hidden and may(identity, "open_record", r, datasets=datasets)]

    def _hidden_decisions(self, s: Session, identity: Identity, ids: set[int]) -> set[int]:
        rows = list(s.scalars(select(DecisionRow).where(DecisionRow.id.in_(ids)))) if ids else []
        found = load_decisions(s, rows, self.settings.public_url)
        datasets = self._datasets_of(s, [sha for d in found for sha in d.datasets])
        return {d.id for d in found if not may(identity, "open_decision", d, datasets=datasets)}

    # --- the whole ----------------------------------------------------------------------------------------------

    def info(self) -> dict:
        """``{"database", "schema_version", "datasets", "views", "decisions"}`` (the URL without its password).

        Returns
        -------
        dict
        """
        with read_session(self.engine) as s:
            counts = {
                name: s.scalar(select(func.count()).select_from(table))
                for name, table in (("datasets", DatasetRow), ("views", ViewRow), ("decisions", DecisionRow))
            }
            version = schema_revision(s.connection())
        return {"database": redacted_url(self.settings.database_url), "schema_version": version, **counts}


def _id(value, what: str) -> int:
    try:
        number = int(value)
    except (TypeError, ValueError):
        number = 0
    if number <= 0 or str(value).strip() != str(number):
        raise InputError(f"{str(value)[:40]!r} is not a {what} number; give a whole number such as 7.")
    return number


def open_workspace(settings: Settings | None = None) -> Workspace:
    """The workspace the environment names (``OPSTUDIO_DATABASE_URL``, ``OPSTUDIO_DATASETS`` ...), ready to use.

    Parameters
    ----------
    settings : Settings, optional
        Default: :func:`engine.workspace.settings_from_env`.

    Returns
    -------
    Workspace
        Its database created or upgraded to this studio's schema when needed.
    """
    return Workspace(settings or settings_from_env())
