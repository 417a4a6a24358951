"""The workspace's tables (the schema at the newest migration; the migrations in ``migrations/versions`` build it).

Times are text, ISO 8601 in UTC with microseconds (``2025-03-04T09:15:02.123456Z``): the same
characters on every database, so they hash alike, and ordered as text. Settings, evidence and
record bodies are canonical JSON text (:mod:`._canonical`), hashed as stored.

Events, records and a decision's content are written once: no code path updates or deletes them,
and the database refuses it too (triggers of migration 0002 on SQLite and PostgreSQL).
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    false,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

__all__ = [
    "Base",
    "DatasetRow",
    "UploadRow",
    "ViewRow",
    "ViewDatasetRow",
    "DecisionRow",
    "DecisionDatasetRow",
    "EventRow",
    "RecordRow",
    "GrantRow",
    "IDENTITY",
    "STAMP",
]

#: longest identity (an e-mail address may be 320 characters)
IDENTITY = 320
#: length of a stored time, ``2025-03-04T09:15:02.123456Z``
STAMP = 27


#: constraint and index names, the same in the models and the migrations (tests compare them)
NAMING = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    """The workspace's declarative base."""

    metadata = MetaData(naming_convention=NAMING)


class DatasetRow(Base):
    """A dataset: its bytes are in the store under ``sha256``; the first to add them owns it."""

    __tablename__ = "datasets"
    sha256: Mapped[str] = mapped_column(String(64), primary_key=True)
    name: Mapped[str] = mapped_column(String(255))
    kind: Mapped[str] = mapped_column(String(32))
    rows: Mapped[int | None] = mapped_column(BigInteger)
    bytes: Mapped[int] = mapped_column(BigInteger)
    owner: Mapped[str] = mapped_column(String(IDENTITY))
    created_at: Mapped[str] = mapped_column(String(STAMP))
    private: Mapped[bool] = mapped_column(Boolean, server_default=false(), default=False)


class UploadRow(Base):
    """Who added a dataset's bytes, when and under which name (everyone who added a private dataset may read it)."""

    __tablename__ = "dataset_uploads"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    sha256: Mapped[str] = mapped_column(ForeignKey("datasets.sha256"), index=True)
    by: Mapped[str] = mapped_column(String(IDENTITY))
    name: Mapped[str] = mapped_column(String(255))
    at: Mapped[str] = mapped_column(String(STAMP))
    __table_args__ = (UniqueConstraint("sha256", "by"),)


class ViewRow(Base):
    """A saved view: a page, its settings and the datasets it reads (``sha256`` of that content dedupes saves)."""

    __tablename__ = "views"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    sha256: Mapped[str] = mapped_column(String(64), unique=True)
    page: Mapped[str] = mapped_column(String(64))
    settings: Mapped[str] = mapped_column(Text)
    owner: Mapped[str] = mapped_column(String(IDENTITY))
    created_at: Mapped[str] = mapped_column(String(STAMP))
    private: Mapped[bool] = mapped_column(Boolean, server_default=false(), default=False)


class ViewDatasetRow(Base):
    """The datasets a view reads, in the page's order."""

    __tablename__ = "view_datasets"
    view_id: Mapped[int] = mapped_column(ForeignKey("views.id"), primary_key=True)
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    sha256: Mapped[str] = mapped_column(ForeignKey("datasets.sha256"), index=True)


class DecisionRow(Base):
    """A decision: its content (every column but ``status``) is written once and hashed into its events."""

    __tablename__ = "decisions"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    kind: Mapped[str] = mapped_column(String(32), index=True)
    name: Mapped[str] = mapped_column(String(255))
    classifier: Mapped[str] = mapped_column(String(255), index=True)
    threshold: Mapped[str] = mapped_column(Text)
    target: Mapped[float | None] = mapped_column(Float)
    tp: Mapped[float | None] = mapped_column(Float)
    fp: Mapped[float | None] = mapped_column(Float)
    settings: Mapped[str] = mapped_column(Text)
    evidence: Mapped[str] = mapped_column(Text)
    note: Mapped[str] = mapped_column(Text)
    proposed_by: Mapped[str] = mapped_column(String(IDENTITY))
    proposed_at: Mapped[str] = mapped_column(String(STAMP), index=True)
    status: Mapped[str] = mapped_column(String(16), index=True)


class DecisionDatasetRow(Base):
    """The datasets a decision was computed on, in order."""

    __tablename__ = "decision_datasets"
    decision_id: Mapped[int] = mapped_column(ForeignKey("decisions.id"), primary_key=True)
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    sha256: Mapped[str] = mapped_column(ForeignKey("datasets.sha256"), index=True)


class EventRow(Base):
    """One transition of a decision, chained to the previous one by ``prev_hash`` (append-only)."""

    __tablename__ = "events"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    decision_id: Mapped[int] = mapped_column(ForeignKey("decisions.id"))
    seq: Mapped[int] = mapped_column(Integer)
    event: Mapped[str] = mapped_column(String(16))
    by: Mapped[str] = mapped_column(String(IDENTITY))
    at: Mapped[str] = mapped_column(String(STAMP))
    note: Mapped[str] = mapped_column(Text)
    content_hash: Mapped[str] = mapped_column(String(64))
    prev_hash: Mapped[str] = mapped_column(String(64))
    hash: Mapped[str] = mapped_column(String(64), unique=True)
    # one event per (decision, position in its chain): of two writers that read the same last event, one fails
    __table_args__ = (UniqueConstraint("decision_id", "seq"),)


class RecordRow(Base):
    """A stored JSON record (an audit design, monitoring alerts ...), optionally on a dataset or a decision."""

    __tablename__ = "records"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    kind: Mapped[str] = mapped_column(String(64))
    key: Mapped[str] = mapped_column(String(128))
    body: Mapped[str] = mapped_column(Text)
    sha256: Mapped[str] = mapped_column(String(64))
    dataset_sha256: Mapped[str | None] = mapped_column(ForeignKey("datasets.sha256"), index=True)
    decision_id: Mapped[int | None] = mapped_column(ForeignKey("decisions.id"), index=True)
    created_by: Mapped[str] = mapped_column(String(IDENTITY))
    created_at: Mapped[str] = mapped_column(String(STAMP))
    __table_args__ = (Index("ix_records_kind_key", "kind", "key"),)


class GrantRow(Base):
    """One role of one identity."""

    __tablename__ = "grants"
    email: Mapped[str] = mapped_column(String(IDENTITY), primary_key=True)
    role: Mapped[str] = mapped_column(String(16), primary_key=True)
    granted_by: Mapped[str] = mapped_column(String(IDENTITY))
    granted_at: Mapped[str] = mapped_column(String(STAMP))
