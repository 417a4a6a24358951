"""The database: one SQLAlchemy engine per workspace, writes that wait for each other, and the schema kept current.

**Writes are serialised per decision.** On PostgreSQL a write locks the rows it reads
(``SELECT … FOR UPDATE``); on SQLite a write transaction starts with ``BEGIN IMMEDIATE`` (one
writer at a time, the others wait up to :data:`BUSY_SECONDS`), reads with a plain ``BEGIN``
(WAL journal: readers never wait for the writer). Either way a writer reads the state the
previous writer committed, so two people acting on one decision at once give one event and
a message to the second.

**The schema is current before first use.** :func:`ensure_schema` runs the Alembic migrations
shipped in ``engine/workspace/migrations`` under a lock (PostgreSQL: an advisory lock; SQLite:
the write lock), so several servers starting at once migrate once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..errors import InputError

__all__ = [
    "connect",
    "ensure_schema",
    "schema_revision",
    "head_revision",
    "read_session",
    "write_session",
    "write_once_more",
    "upgrade_to",
    "BUSY_SECONDS",
]

#: how long a SQLite writer waits for another one before giving up
BUSY_SECONDS = 60
MIGRATIONS = Path(__file__).resolve().parent / "migrations"
#: PostgreSQL advisory lock key of the migrations ("opstudio" in ASCII, as a 64-bit integer)
_LOCK_KEY = 0x6F7073747564696F
_WRITE = "opstudio_write"
T = TypeVar("T")


def _sqlite_events(engine: Engine) -> None:
    """SQLite: foreign keys on, WAL journal, a busy timeout, and transactions begun by us (``BEGIN IMMEDIATE``
    for writes) instead of by the sqlite3 module (which begins them late and never for DDL)."""

    @event.listens_for(engine, "connect")
    def _connect(dbapi_connection, _record):
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.execute(f"PRAGMA busy_timeout = {BUSY_SECONDS * 1000}")
        cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute("PRAGMA synchronous = NORMAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(connection):
        write = connection.get_execution_options().get(_WRITE, False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")


def connect(url: str) -> Engine:
    """A SQLAlchemy engine for the workspace's database (a SQLite file's folder is created).

    Parameters
    ----------
    url : str
        SQLAlchemy URL (``sqlite:///path/workspace.db``, ``postgresql+psycopg://…``).

    Returns
    -------
    sqlalchemy.Engine

    Raises
    ------
    InputError
        The URL cannot be parsed, or names a driver that is not installed.
    """
    try:
        parsed = make_url(url)
    except Exception:  # noqa: BLE001 - SQLAlchemy raises ArgumentError or ValueError
        raise InputError(
            "OPSTUDIO_DATABASE_URL is not a database URL; give e.g. postgresql+psycopg://user@host/db "
            "or sqlite:////path/workspace.db."
        ) from None
    if parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:"):
        Path(parsed.database).expanduser().parent.mkdir(parents=True, exist_ok=True)
    try:
        engine = create_engine(parsed, pool_pre_ping=True)
    except ImportError as exc:
        raise InputError(
            f"The database driver for {parsed.drivername} is not installed ({exc.name}); for PostgreSQL "
            "install it with: pip install 'operating-point-studio[postgresql]'."
        ) from None
    if engine.dialect.name == "sqlite":
        _sqlite_events(engine)
    return engine


def _alembic_config(connection: Connection):
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    return config


def head_revision() -> str:
    """The newest schema revision shipped with this version of the studio.

    Returns
    -------
    str
    """
    from alembic.script import ScriptDirectory

    config = _alembic_config(None)
    return ScriptDirectory.from_config(config).get_current_head()


def schema_revision(connection: Connection) -> str | None:
    """The database's schema revision, or None for a database without the workspace's tables.

    Parameters
    ----------
    connection : sqlalchemy.engine.Connection

    Returns
    -------
    str or None
    """
    from alembic.runtime.migration import MigrationContext

    return MigrationContext.configure(connection).get_current_revision()


@contextmanager
def _locked(engine: Engine) -> Iterator[Connection]:
    """A write transaction holding the migration lock."""
    with engine.execution_options(**{_WRITE: True}).begin() as connection:
        if engine.dialect.name == "postgresql":
            connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _LOCK_KEY})
        yield connection


def upgrade_to(engine: Engine, revision: str = "head") -> tuple[str | None, str]:
    """Migrate the database to ``revision`` under the migration lock.

    Parameters
    ----------
    engine : sqlalchemy.Engine
    revision : str
        An Alembic revision (``"head"``, ``"0001"``).

    Returns
    -------
    (str or None, str)
        The revision before and after.
    """
    from alembic import command

    with _locked(engine) as connection:
        before = schema_revision(connection)
        command.upgrade(_alembic_config(connection), revision)
        return before, schema_revision(connection)


def ensure_schema(engine: Engine) -> tuple[str | None, str]:
    """Create or upgrade the database to the newest revision unless it is there already.

    Parameters
    ----------
    engine : sqlalchemy.Engine

    Returns
    -------
    (str or None, str)
        The revision found (None: no workspace tables yet) and the revision now (the newest).

    Raises
    ------
    InputError
        The database is at a revision this version of the studio does not know (a newer studio migrated it).
    """
    head = head_revision()
    with engine.connect() as connection:
        current = schema_revision(connection)
    if current == head:
        return head, head
    from alembic.script import ScriptDirectory

    known = {s.revision for s in ScriptDirectory.from_config(_alembic_config(None)).walk_revisions()}
    if current is not None and current not in known:
        raise InputError(
            f"The workspace database is at schema revision {current}, newer than this studio knows ({head}); "
            "upgrade operating-point-studio on this machine."
        )
    return upgrade_to(engine)


@contextmanager
def read_session(engine: Engine) -> Iterator[Session]:
    """A session for reading (nothing is committed).

    Parameters
    ----------
    engine : sqlalchemy.Engine

    Yields
    ------
    sqlalchemy.orm.Session
    """
    with Session(engine, expire_on_commit=False) as session:
        yield session


@contextmanager
def write_session(engine: Engine) -> Iterator[Session]:
    """A session whose transaction waits for other writers (SQLite ``BEGIN IMMEDIATE``) and commits at the end.

    Parameters
    ----------
    engine : sqlalchemy.Engine

    Yields
    ------
    sqlalchemy.orm.Session
    """
    with Session(engine.execution_options(**{_WRITE: True}), expire_on_commit=False) as session, session.begin():
        yield session


def write_once_more(engine: Engine, work: Callable[[Session], T]) -> T:
    """``work(session)`` in a write transaction, run once more if it lost a race on a unique key.

    Two writers of the same new row (the same dataset's bytes, the same view, the next event of a decision
    on a database without row locks) both pass their checks; the database keeps one and refuses the other
    (``IntegrityError``). Run again, the loser's ``work`` finds the winner's row.

    Parameters
    ----------
    engine : sqlalchemy.Engine
    work : callable
        Takes the session; reads, writes and returns what the caller needs.

    Returns
    -------
    Any
        What ``work`` returned.
    """
    try:
        with write_session(engine) as session:
            return work(session)
    except IntegrityError:
        with write_session(engine) as session:
            return work(session)
