"""Alembic's environment: migrations run on the connection the workspace hands over (inside its lock).

The workspace (``engine.workspace``) opens the connection, takes the migration lock and puts the
connection in ``config.attributes["connection"]``; nothing here reads a URL or an ini file. Imported
outside a migration (a check that imports every module of the engine), it does nothing.
"""

from alembic import context


def run_migrations() -> None:
    """Run the pending migrations on the workspace's connection, in its transaction."""
    connection = context.config.attributes.get("connection")
    if connection is None:
        raise RuntimeError("run the workspace's migrations with `opstudio workspace upgrade`, not the alembic command")
    context.configure(connection=connection, target_metadata=None, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


if hasattr(context, "config"):  # Alembic set up its context: this is a migration run
    run_migrations()
