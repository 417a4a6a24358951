"""The base schema: datasets, saved views, decisions and their hash-chained events.

Revision ID: 0001
Revises:
Create Date: 2025-06-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def _stamp(name: str) -> sa.Column:
    return sa.Column(name, sa.String(27), nullable=False)


def _who(name: str) -> sa.Column:
    return sa.Column(name, sa.String(320), nullable=False)


def upgrade() -> None:
    op.create_table(
        "datasets",
        sa.Column("sha256", sa.String(64), nullable=False),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("rows", sa.BigInteger(), nullable=True),
        sa.Column("bytes", sa.BigInteger(), nullable=False),
        _who("owner"),
        _stamp("created_at"),
        sa.PrimaryKeyConstraint("sha256", name="pk_datasets"),
    )
    op.create_table(
        "views",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("sha256", sa.String(64), nullable=False),
        sa.Column("page", sa.String(64), nullable=False),
        sa.Column("settings", sa.Text(), nullable=False),
        _who("owner"),
        _stamp("created_at"),
        sa.PrimaryKeyConstraint("id", name="pk_views"),
        sa.UniqueConstraint("sha256", name="uq_views_sha256"),
    )
    op.create_table(
        "view_datasets",
        sa.Column("view_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("sha256", sa.String(64), nullable=False),
        sa.PrimaryKeyConstraint("view_id", "position", name="pk_view_datasets"),
        sa.ForeignKeyConstraint(["view_id"], ["views.id"], name="fk_view_datasets_view_id_views"),
        sa.ForeignKeyConstraint(["sha256"], ["datasets.sha256"], name="fk_view_datasets_sha256_datasets"),
    )
    op.create_index("ix_view_datasets_sha256", "view_datasets", ["sha256"])
    op.create_table(
        "decisions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("classifier", sa.String(255), nullable=False),
        sa.Column("threshold", sa.Text(), nullable=False),
        sa.Column("target", sa.Float(), nullable=True),
        sa.Column("tp", sa.Float(), nullable=True),
        sa.Column("fp", sa.Float(), nullable=True),
        sa.Column("settings", sa.Text(), nullable=False),
        sa.Column("evidence", sa.Text(), nullable=False),
        sa.Column("note", sa.Text(), nullable=False),
        _who("proposed_by"),
        _stamp("proposed_at"),
        sa.Column("status", sa.String(16), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_decisions"),
    )
    for column in ("kind", "classifier", "proposed_at", "status"):
        op.create_index(f"ix_decisions_{column}", "decisions", [column])
    op.create_table(
        "decision_datasets",
        sa.Column("decision_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("sha256", sa.String(64), nullable=False),
        sa.PrimaryKeyConstraint("decision_id", "position", name="pk_decision_datasets"),
        sa.ForeignKeyConstraint(["decision_id"], ["decisions.id"], name="fk_decision_datasets_decision_id_decisions"),
        sa.ForeignKeyConstraint(["sha256"], ["datasets.sha256"], name="fk_decision_datasets_sha256_datasets"),
    )
    op.create_index("ix_decision_datasets_sha256", "decision_datasets", ["sha256"])
    op.create_table(
        "events",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("decision_id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("event", sa.String(16), nullable=False),
        _who("by"),
        _stamp("at"),
        sa.Column("note", sa.Text(), nullable=False),
        sa.Column("content_hash", sa.String(64), nullable=False),
        sa.Column("prev_hash", sa.String(64), nullable=False),
        sa.Column("hash", sa.String(64), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_events"),
        sa.ForeignKeyConstraint(["decision_id"], ["decisions.id"], name="fk_events_decision_id_decisions"),
        sa.UniqueConstraint("decision_id", "seq", name="uq_events_decision_id_seq"),
        sa.UniqueConstraint("hash", name="uq_events_hash"),
    )


def downgrade() -> None:
    for table in ("events", "decision_datasets", "decisions", "view_datasets", "views", "datasets"):
        op.drop_table(table)
