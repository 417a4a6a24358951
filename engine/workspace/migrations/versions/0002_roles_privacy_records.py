"""Roles, private datasets and views, who added each dataset, stored records, and the database refusing edits.

* ``grants``: the roles of each identity (issue 35);
* ``datasets.private`` and ``views.private``; ``dataset_uploads``: everyone who added a dataset's
  bytes (filled from each existing dataset's owner);
* ``records``: JSON records (audit designs, monitoring alerts) on a dataset or a decision;
* triggers: events, records and saved views are never updated or deleted, a decision's content
  never changes (only its status) and no decision is deleted, on SQLite and PostgreSQL.

Revision ID: 0002
Revises: 0001
Create Date: 2025-06-08
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

#: tables whose rows are written once
APPEND_ONLY = ("events", "records", "views", "view_datasets", "decision_datasets")
#: the columns of a decision that are its content (everything but its status)
CONTENT = "id, kind, name, classifier, threshold, target, tp, fp, settings, evidence, note, proposed_by, proposed_at"


def _tables() -> None:
    op.add_column("datasets", sa.Column("private", sa.Boolean(), server_default=sa.false(), nullable=False))
    op.add_column("views", sa.Column("private", sa.Boolean(), server_default=sa.false(), nullable=False))
    op.create_table(
        "dataset_uploads",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("sha256", sa.String(64), nullable=False),
        sa.Column("by", sa.String(320), nullable=False),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("at", sa.String(27), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_dataset_uploads"),
        sa.ForeignKeyConstraint(["sha256"], ["datasets.sha256"], name="fk_dataset_uploads_sha256_datasets"),
        sa.UniqueConstraint("sha256", "by", name="uq_dataset_uploads_sha256_by"),
    )
    op.create_index("ix_dataset_uploads_sha256", "dataset_uploads", ["sha256"])
    op.execute(
        'INSERT INTO dataset_uploads (sha256, "by", name, at) SELECT sha256, owner, name, created_at FROM datasets'
    )
    op.create_table(
        "records",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(64), nullable=False),
        sa.Column("key", sa.String(128), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("sha256", sa.String(64), nullable=False),
        sa.Column("dataset_sha256", sa.String(64), nullable=True),
        sa.Column("decision_id", sa.Integer(), nullable=True),
        sa.Column("created_by", sa.String(320), nullable=False),
        sa.Column("created_at", sa.String(27), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_records"),
        sa.ForeignKeyConstraint(["dataset_sha256"], ["datasets.sha256"], name="fk_records_dataset_sha256_datasets"),
        sa.ForeignKeyConstraint(["decision_id"], ["decisions.id"], name="fk_records_decision_id_decisions"),
    )
    op.create_index("ix_records_kind_key", "records", ["kind", "key"])
    op.create_index("ix_records_decision_id", "records", ["decision_id"])
    op.create_index("ix_records_dataset_sha256", "records", ["dataset_sha256"])
    op.create_table(
        "grants",
        sa.Column("email", sa.String(320), nullable=False),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("granted_by", sa.String(320), nullable=False),
        sa.Column("granted_at", sa.String(27), nullable=False),
        sa.PrimaryKeyConstraint("email", "role", name="pk_grants"),
    )


def _sqlite_triggers() -> list[str]:
    statements = []
    for table in APPEND_ONLY:
        for operation in ("UPDATE", "DELETE"):
            statements.append(
                f"CREATE TRIGGER {table}_no_{operation.lower()} BEFORE {operation} ON {table} BEGIN "
                f"SELECT RAISE(ABORT, 'opstudio: {table} are written once: {operation} refused'); END"
            )
    statements.append(
        f"CREATE TRIGGER decisions_content_fixed BEFORE UPDATE OF {CONTENT} ON decisions BEGIN "
        "SELECT RAISE(ABORT, 'opstudio: a decision''s content is written once: only its status changes'); END"
    )
    statements.append(
        "CREATE TRIGGER decisions_no_delete BEFORE DELETE ON decisions BEGIN "
        "SELECT RAISE(ABORT, 'opstudio: decisions are never deleted: DELETE refused'); END"
    )
    return statements


def _postgresql_triggers() -> list[str]:
    old = ", ".join(f"OLD.{c.strip()}" for c in CONTENT.split(","))
    new = ", ".join(f"NEW.{c.strip()}" for c in CONTENT.split(","))
    statements = [
        "CREATE FUNCTION opstudio_written_once() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
        "RAISE EXCEPTION 'opstudio: % are written once: % refused', TG_TABLE_NAME, TG_OP; END $$",
        "CREATE FUNCTION opstudio_decision_content_fixed() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
        f"IF ({new}) IS DISTINCT FROM ({old}) THEN "
        "RAISE EXCEPTION 'opstudio: a decision''s content is written once: only its status changes'; END IF; "
        "RETURN NEW; END $$",
        "CREATE TRIGGER decisions_content_fixed BEFORE UPDATE ON decisions FOR EACH ROW "
        "EXECUTE FUNCTION opstudio_decision_content_fixed()",
    ]
    for table in (*APPEND_ONLY, "decisions"):
        operations = "DELETE" if table == "decisions" else "UPDATE OR DELETE"
        statements.append(
            f"CREATE TRIGGER {table}_written_once BEFORE {operations} ON {table} FOR EACH ROW "
            "EXECUTE FUNCTION opstudio_written_once()"
        )
        statements.append(
            f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table} FOR EACH STATEMENT "
            "EXECUTE FUNCTION opstudio_written_once()"
        )
    return statements


def upgrade() -> None:
    _tables()
    dialect = op.get_bind().dialect.name
    # other databases get no triggers: the workspace's code never updates or deletes these rows either
    for statement in {"sqlite": _sqlite_triggers, "postgresql": _postgresql_triggers}.get(dialect, list)():
        op.execute(statement)


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        for table in APPEND_ONLY:
            op.execute(f"DROP TRIGGER {table}_no_update")
            op.execute(f"DROP TRIGGER {table}_no_delete")
        op.execute("DROP TRIGGER decisions_content_fixed")
        op.execute("DROP TRIGGER decisions_no_delete")
    elif dialect == "postgresql":
        op.execute("DROP TRIGGER decisions_content_fixed ON decisions")
        for table in (*APPEND_ONLY, "decisions"):
            op.execute(f"DROP TRIGGER {table}_written_once ON {table}")
            op.execute(f"DROP TRIGGER {table}_no_truncate ON {table}")
        op.execute("DROP FUNCTION opstudio_decision_content_fixed()")
        op.execute("DROP FUNCTION opstudio_written_once()")
    op.drop_table("grants")
    op.drop_index("ix_records_dataset_sha256", "records")
    op.drop_index("ix_records_decision_id", "records")
    op.drop_index("ix_records_kind_key", "records")
    op.drop_table("records")
    op.drop_index("ix_dataset_uploads_sha256", "dataset_uploads")
    op.drop_table("dataset_uploads")
    with op.batch_alter_table("views") as batch:
        batch.drop_column("private")
    with op.batch_alter_table("datasets") as batch:
        batch.drop_column("private")
