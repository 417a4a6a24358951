"""Where the workspace lives: the database URL, the dataset store, the size limit and the public URL, from the environment.

=========================  ==============================================================================
``OPSTUDIO_HOME``          the studio's folder (default: the platform's user data folder, platformdirs)
``OPSTUDIO_DATABASE_URL``  any SQLAlchemy URL (default ``sqlite:///$OPSTUDIO_HOME/workspace.db``);
                           a team: ``postgresql+psycopg://user:password@host/db``
``OPSTUDIO_DATASETS``      the content-addressed dataset store: a folder or an fsspec URL
                           (default ``$OPSTUDIO_HOME/datasets``)
``OPSTUDIO_MAX_DATASET_MB`` largest dataset stored, in MB (default 1024)
``OPSTUDIO_PUBLIC_URL``    the address colleagues open links at (default ``http://localhost:8501``)
=========================  ==============================================================================
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError

__all__ = ["Settings", "settings_from_env", "redacted_url", "DEFAULT_MAX_DATASET_MB", "DEFAULT_PUBLIC_URL"]

DEFAULT_MAX_DATASET_MB = 1024
DEFAULT_PUBLIC_URL = "http://localhost:8501"


@dataclass(frozen=True)
class Settings:
    """Where a workspace keeps its database and its datasets' bytes.

    Attributes
    ----------
    database_url : str
        SQLAlchemy URL of the database.
    datasets : str
        The dataset store: a folder, or an fsspec URL (``s3://bucket/prefix``, ``memory://x``).
    max_dataset_bytes : int
        Largest dataset the store accepts.
    public_url : str
        The studio's address in links, without a trailing slash.
    """

    database_url: str
    datasets: str
    max_dataset_bytes: int = DEFAULT_MAX_DATASET_MB * 2**20
    public_url: str = DEFAULT_PUBLIC_URL


def _home(environ: Mapping[str, str]) -> Path:
    if environ.get("OPSTUDIO_HOME"):
        return Path(environ["OPSTUDIO_HOME"]).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("opstudio", appauthor=False))


def _max_bytes(environ: Mapping[str, str]) -> int:
    text = environ.get("OPSTUDIO_MAX_DATASET_MB", "").strip()
    if not text:
        return DEFAULT_MAX_DATASET_MB * 2**20
    try:
        mb = float(text)
    except ValueError:
        mb = float("nan")
    if not mb > 0 or mb == float("inf"):
        raise InputError(f"OPSTUDIO_MAX_DATASET_MB is {text[:40]!r}; give a positive number of megabytes (e.g. 1024).")
    return int(mb * 2**20)


def settings_from_env(environ: Mapping[str, str] | None = None) -> Settings:
    """The workspace's settings from the ``OPSTUDIO_*`` environment variables (see the module docstring).

    Parameters
    ----------
    environ : mapping, optional
        The environment (default ``os.environ``).

    Returns
    -------
    Settings

    Raises
    ------
    InputError
        ``OPSTUDIO_MAX_DATASET_MB`` is not a positive number.
    """
    environ = os.environ if environ is None else environ
    home = _home(environ)
    url = environ.get("OPSTUDIO_DATABASE_URL") or f"sqlite:///{home / 'workspace.db'}"
    datasets = environ.get("OPSTUDIO_DATASETS") or str(home / "datasets")
    public = (environ.get("OPSTUDIO_PUBLIC_URL") or DEFAULT_PUBLIC_URL).rstrip("/")
    return Settings(url, datasets, _max_bytes(environ), public)


def redacted_url(url: str) -> str:
    """``url`` without its password (``postgresql+psycopg://ana:***@db/studio``).

    Parameters
    ----------
    url : str
        A SQLAlchemy URL.

    Returns
    -------
    str
    """
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)
