"""The team's workspace: datasets, saved views, decisions, records and roles, kept in a database.

A :class:`Workspace` is a SQL database (SQLite by default at ``$OPSTUDIO_HOME/workspace.db``,
PostgreSQL for a team via ``OPSTUDIO_DATABASE_URL``) and a content-addressed store of the datasets'
bytes (``OPSTUDIO_DATASETS``); :func:`open_workspace` opens the one the environment names, creating
or upgrading its schema (Alembic migrations shipped in this package) when needed.

* datasets: :meth:`Workspace.add_dataset` (bytes stored once by SHA-256), :meth:`~Workspace.dataset`,
  :meth:`~Workspace.dataset_bytes`, :meth:`~Workspace.datasets`;
* views: :meth:`Workspace.save_view` (a page, its settings and datasets -> a permanent link), :meth:`~Workspace.view`;
* decisions: :meth:`Workspace.propose`, :meth:`~Workspace.act` (approve, reject, deploy, retire: one
  hash-chained event each), :meth:`~Workspace.decision`, :meth:`~Workspace.decisions`, :meth:`~Workspace.verify`;
* records (audit designs, monitoring alerts): :meth:`Workspace.add_record`, :meth:`~Workspace.records`;
* roles: :meth:`Workspace.identity`, :meth:`~Workspace.grant`, :meth:`~Workspace.revoke`, :meth:`~Workspace.users`,
  and :func:`may`, the one answer to "may X do A on O" (:mod:`engine.workspace.access`).

Nothing here imports Streamlit; pages and the CLI import these names from here.
"""

from ._config import Settings, settings_from_env
from ._decisions import DECISION_KINDS, STATUSES, TRANSITIONS
from ._objects import Dataset, Decision, Event, Record, User, Verification, View
from ._workspace import Workspace, open_workspace
from .access import ACTIONS, ROLES, AccessError, Identity, Permission, may

#: the package's public modules beside this front (every other module is private)
__public_modules__ = ("access",)

__all__ = [
    "Workspace",
    "open_workspace",
    "Settings",
    "settings_from_env",
    "Identity",
    "may",
    "Permission",
    "AccessError",
    "Dataset",
    "View",
    "Decision",
    "Event",
    "Record",
    "User",
    "Verification",
    "ROLES",
    "ACTIONS",
    "DECISION_KINDS",
    "STATUSES",
    "TRANSITIONS",
]
