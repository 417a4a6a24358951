"""Alembic's environment: migrations run on the connection the workspace hands over (inside its lock).

The workspace (``engine.workspace``) opens the connection, takes the migration lock and puts the
connection in ``config.attributes["connection"]``; nothing here reads a URL or an ini file.
"""

from alembic import context

connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError("run the workspace's migrations with `opstudio workspace upgrade`, not the alembic command")
context.configure(connection=connection, target_metadata=None, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
