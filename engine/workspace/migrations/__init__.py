"""The workspace's Alembic migrations (run by :func:`engine.workspace.open_workspace` and ``opstudio workspace``)."""
