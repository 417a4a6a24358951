"""One validated input of this session: the engine object, its kind, where it came from and its digest.

The per-kind forms (``views/forms``) build these; ``views/inputs.py`` keeps them in
the session and lets pages pick one. A module of its own, so that the forms and the
session store both depend on it and not on each other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.io import INPUT_KINDS
from views.state import SERVER_WIDE

#: how each source is named to people
SOURCE_TITLES = {
    "sample": "shipped sample",
    "upload": "your upload",
    "server": "on the server (DuckDB)",
    "workspace": "from the workspace",
}

#: sources the server holds once whatever the number of sessions reading them (views.inputs.shared_sample,
#: views.workspace.dataset_input): their results are computed once per server too
SERVER_HELD_SOURCES = frozenset({"sample", "workspace"})


@dataclass(frozen=True)
class SessionInput:
    """A validated input: ``value`` is the engine object of its kind; ``mapping`` the settings it was read with."""

    name: str
    kind: str
    # "sample", "upload", "server" (connected rows counted by DuckDB, see views/forms/connected.py) or "workspace"
    # (a dataset of the workspace a saved view reads, views/workspace.py)
    source: str
    fingerprint: str
    value: Any
    mapping: Any = None
    sample_key: str | None = None
    table: Any = None  # the parsed engine.io.Table for tabular kinds
    raw: bytes | None = None  # the uploaded bytes, for kinds that re-read them with other settings

    @property
    def key(self) -> tuple:
        """Identity for memo keys: the bytes' digest and the mapping; led by :data:`views.state.SERVER_WIDE` for data
        the server holds once for every session (a shipped sample, a workspace dataset), whose results are then
        shared too (an upload's stay in its session)."""
        if self.source in SERVER_HELD_SOURCES:
            return (SERVER_WIDE, self.fingerprint, self.mapping)
        return (self.fingerprint, self.mapping)

    @property
    def rated(self):
        """The rated data of a rated input."""
        return self.value

    @property
    def kind_title(self) -> str:
        return INPUT_KINDS[self.kind].title
