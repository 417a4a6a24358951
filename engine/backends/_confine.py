"""What a DuckDB connection may read: the files a path or glob names, checked against the allowed folders.

A connection to rows on the server must read only files inside the folders the
dashboard may read (``OPSTUDIO_DATA_ROOTS``). Three layers see to it:

* **Globs are resolved here**, by a bounded walk (at most :data:`MAX_GLOB_FILES` files,
  :data:`MAX_GLOB_DEPTH` folder levels, :data:`MAX_GLOB_ENTRIES` folder entries looked at;
  a folder that links back to one of its parents is refused at once), with Python's glob
  rules (``*`` and ``**`` skip hidden names). DuckDB is given the explicit list of files,
  never the pattern, so it reads nothing that was not checked.
* **Every file is checked after resolving symbolic links**, each time a connection is
  opened (:func:`checked_files`), not only when the user connects: a file replaced by a
  link out of the folders later is refused at its next scan.
* **The connection is locked** (:func:`lock_down`): ``enable_external_access = false`` with
  ``allowed_paths`` exactly the checked files, extensions neither installed nor loaded, and
  ``lock_configuration = true``. A DuckDB database's views and macros that read files
  (``read_csv('/etc/passwd')``), ``ATTACH`` or ``COPY`` fail inside DuckDB; the failure is
  reported without DuckDB's message (which names the file), see :func:`duckdb_message`.

Messages name only what the user typed, or files inside the folders; a path outside
them gets one message whether it exists or not.
"""

from __future__ import annotations

import fnmatch
import os
import stat
from collections.abc import Sequence

from ..errors import InputError

__all__ = [
    "MAX_GLOB_FILES",
    "MAX_GLOB_DEPTH",
    "MAX_GLOB_ENTRIES",
    "GLOB_CHARS",
    "matched_files",
    "checked_files",
    "lock_down",
    "duckdb_message",
    "outside_message",
    "ROOTS_VARIABLE",
    "data_roots",
    "confined_path",
    "readable_roots",
]

#: environment variable: the folders (separated by os.pathsep) the dashboard's connections may read
ROOTS_VARIABLE = "OPSTUDIO_DATA_ROOTS"


def data_roots() -> list[str] | None:
    """The folders the dashboard's connections may read, from :data:`ROOTS_VARIABLE`.

    Returns
    -------
    list of str or None
        The folders; None (any file the server's user can read) when the variable is unset or empty.
    """
    roots = [r for r in os.environ.get(ROOTS_VARIABLE, "").split(os.pathsep) if r]
    return roots or None


def readable_roots() -> tuple[str, ...] | None:
    """The folders the studio's own reads (the command line, DuckDB, audit populations) may use by default.

    Returns
    -------
    tuple of str or None
        :func:`data_roots` and the shipped samples' folder (public data, always readable); None (any file the
        server's user can read) when :data:`ROOTS_VARIABLE` is unset.
    """
    from ..io._samples import SAMPLE_DIR

    roots = data_roots()
    return None if roots is None else (*roots, str(SAMPLE_DIR))


def confined_path(path: str, roots: Sequence[str] | None = None) -> str:
    """``path`` once every file it names lies inside ``roots`` (default: :func:`readable_roots`; any file when unset).

    For readers that open a path themselves (the command line's memory backend, model and policy files):
    the same check, links resolved, and the same message whether the file exists or not, as a connection's.

    Parameters
    ----------
    path : str
        A file or a glob.
    roots : sequence of str, optional
        The allowed folders (default: ``OPSTUDIO_DATA_ROOTS`` and the shipped samples').

    Returns
    -------
    str
        ``path`` unchanged.

    Raises
    ------
    InputError
        As :func:`matched_files`, when folders are set.
    """
    roots = readable_roots() if roots is None else roots
    if roots is not None:
        matched_files(str(path), roots)
    return path


#: most files a glob may match
MAX_GLOB_FILES = 10_000
#: most folder levels a glob walks below its fixed part
MAX_GLOB_DEPTH = 32
#: most folder entries a glob looks at
MAX_GLOB_ENTRIES = 200_000
#: characters that make a path a glob
GLOB_CHARS = frozenset("*?[")


def _real_roots(roots: Sequence[str] | None) -> list[str] | None:
    if roots is None:
        return None
    return [os.path.realpath(os.path.expanduser(str(r))) for r in roots if str(r).strip()]


def _inside(real: str, roots: list[str] | None) -> bool:
    """Whether the real path ``real`` is one of the real ``roots`` or lies below one."""
    return roots is None or any(
        real == root or real.startswith(root if root.endswith(os.sep) else root + os.sep) for root in roots
    )


def outside_message(shown: str, roots: Sequence[str] | None) -> str:
    """The refusal of a path outside the allowed folders (the same whether it exists or not).

    Parameters
    ----------
    shown : str
        The path as the user typed it (or a file inside the folders a glob matched).
    roots : sequence of str
        The allowed folders, as configured.

    Returns
    -------
    str
    """
    listed = ", ".join(str(r) for r in roots or () if str(r).strip()) or "none"
    return (
        f"'{shown}' is outside the folders this dashboard may read ({listed}), or links out of them. "
        "Choose files inside them."
    )


def matched_files(path: str, roots: Sequence[str] | None = None) -> list[tuple[str, str]]:
    """The files a path or glob names, each as (path as matched, real path), checked against ``roots``.

    Parameters
    ----------
    path : str
        A file path or a glob (``*``, ``?``, ``[...]``, ``**`` for any folder depth).
    roots : sequence of str, optional
        Folders every file must lie in after resolving symbolic links; any file when None.

    Returns
    -------
    list of (str, str)
        Sorted by the matched path; at most :data:`MAX_GLOB_FILES`.

    Raises
    ------
    InputError
        A path (or a matched file, or a folder a glob walks into) outside ``roots``; a missing
        file, a folder, nothing matching; too many files, entries or levels; a folder that links
        back to one of its parents; an unreadable file.
    """
    real_roots = _real_roots(roots)
    if not GLOB_CHARS & set(path):
        real = os.path.realpath(path)
        if not _inside(real, real_roots):
            raise InputError(outside_message(path, roots))
        if os.path.isdir(real):
            raise InputError(
                f"'{path}' is a folder. Give a file or a glob of its files, e.g. {path.rstrip('/')}/*.parquet."
            )
        if not os.path.isfile(real):
            raise InputError(
                f"No file matches '{path}': it does not exist on the server. Check the path (it is read "
                "on the machine running the dashboard, relative to its working folder unless absolute)."
            )
        files = [(path, real)]
    else:
        files = _Walk(path, roots, real_roots).run()
    unreadable = [shown for shown, real in files if not os.access(real, os.R_OK)]
    if unreadable:
        raise InputError(
            f"'{unreadable[0]}' cannot be read: permission denied"
            f"{f' ({len(unreadable)} files)' if len(unreadable) > 1 else ''}. Give the dashboard's "
            "user read access or choose other files."
        )
    return files


class _Walk:
    """One bounded walk of a glob from its fixed part (the folders before the first glob character)."""

    def __init__(self, pattern: str, roots: Sequence[str] | None, real_roots: list[str] | None) -> None:
        self.pattern, self.roots, self.real_roots = pattern, roots, real_roots
        parts = pattern.split(os.sep)
        first = next(i for i, p in enumerate(parts) if GLOB_CHARS & set(p))
        self.base = os.sep.join(parts[:first]) or (os.sep if pattern.startswith(os.sep) else "")
        self.parts = [p for p in parts[first:] if p]
        self.entries = 0
        self.found: list[tuple[str, str]] = []

    def run(self) -> list[tuple[str, str]]:
        base = self.base or "."
        real = os.path.realpath(base)
        if not _inside(real, self.real_roots):
            raise InputError(outside_message(self.pattern, self.roots))
        if os.path.isdir(real):
            self._descend(self.base, real, 0, 0, frozenset())
        if not self.found:
            raise InputError(
                f"No file matches the glob '{self.pattern}' on the server. Check the folder and the "
                "pattern (e.g. /data/ratings/*.parquet)."
            )
        return sorted(self.found)

    def _too_much(self, what: str) -> InputError:
        return InputError(
            f"The glob '{self.pattern}' {what}. Narrow the pattern (fewer folders or files), or "
            "combine the files into fewer, larger ones."
        )

    def _listing(self, shown: str, real: str) -> list[tuple[str, os.DirEntry]]:
        try:
            with os.scandir(real) as it:
                entries = list(it)
        except OSError:
            return []  # an unreadable folder holds no match (as glob.glob)
        self.entries += len(entries)
        if self.entries > MAX_GLOB_ENTRIES:
            raise self._too_much(f"looks at more than {MAX_GLOB_ENTRIES:,} folder entries")
        return sorted((os.path.join(shown, e.name) if shown else e.name, e) for e in entries)

    def _descend(self, shown: str, real: str, index: int, depth: int, parents: frozenset) -> None:
        """Enter the folder ``shown`` (real path ``real``) unless it is too deep or one of its own parents."""
        if depth > MAX_GLOB_DEPTH:
            raise self._too_much(f"goes more than {MAX_GLOB_DEPTH} folder levels deep")
        info = os.stat(real)
        key = (info.st_dev, info.st_ino)
        if key in parents:
            raise InputError(
                f"The glob '{self.pattern}' runs into a folder that links back to one of its parents "
                f"('{shown}'). Remove the link or narrow the pattern."
            )
        self._folder(shown, real, index, depth, parents | {key})

    def _folder(self, shown: str, real: str, index: int, depth: int, parents: frozenset) -> None:
        """Match parts[index:] inside the folder ``shown`` (whose real path is ``real``)."""
        part, last = self.parts[index], index == len(self.parts) - 1
        if part == "**":
            if not last:
                self._folder(shown, real, index + 1, depth, parents)  # ** matches no folder too
            for name, entry in self._listing(shown, real):
                if not entry.name.startswith("."):
                    self._entry(name, entry, index, depth, parents, recurse=True, last=last)
            return
        if not GLOB_CHARS & set(part):
            name = os.path.join(shown, part) if shown else part
            self._path(name, index, depth, parents, last)
            return
        for name, entry in self._listing(shown, real):
            if fnmatch.fnmatchcase(entry.name, part) and (part.startswith(".") or not entry.name.startswith(".")):
                self._entry(name, entry, index, depth, parents, recurse=False, last=last)

    def _path(self, name: str, index: int, depth: int, parents: frozenset, last: bool) -> None:
        real = os.path.realpath(name)
        if not os.path.exists(real):
            return
        self._checked(name, real)
        if last:
            if os.path.isfile(real):
                self._add(name, real)
        elif os.path.isdir(real):
            self._descend(name, real, index + 1, depth + 1, parents)

    def _entry(
        self, name: str, entry: os.DirEntry, index: int, depth: int, parents: frozenset, *, recurse: bool, last: bool
    ) -> None:
        try:
            mode = entry.stat().st_mode  # links followed
        except OSError:
            return  # a dangling link matches nothing
        if not (stat.S_ISDIR(mode) or (last and stat.S_ISREG(mode))):
            return
        # entry.path joins the folder's real path and the name: real unless the entry is itself a link
        real = os.path.realpath(entry.path) if entry.is_symlink() else entry.path
        self._checked(name, real)
        if stat.S_ISREG(mode):
            self._add(name, real)
        elif recurse:
            self._descend(name, real, index, depth + 1, parents)
        elif not last:
            self._descend(name, real, index + 1, depth + 1, parents)

    def _checked(self, name: str, real: str) -> None:
        if not _inside(real, self.real_roots):
            raise InputError(outside_message(name, self.roots))

    def _add(self, name: str, real: str) -> None:
        self.found.append((name, real))
        if len(self.found) > MAX_GLOB_FILES:
            raise self._too_much(f"matches more than {MAX_GLOB_FILES:,} files")


def checked_files(path: str, roots: Sequence[str] | None = None) -> tuple[str, ...]:
    """The real paths of the files a path or glob names, checked now (call it at every scan).

    Parameters
    ----------
    path : str
        A file path or a glob.
    roots : sequence of str, optional
        Folders every file must lie in after resolving symbolic links; any file when None.

    Returns
    -------
    tuple of str
        What DuckDB may read, in the glob's order.

    Raises
    ------
    InputError
        As :func:`matched_files`.
    """
    return tuple(real for _, real in matched_files(path, roots))


def lock_down(con, allowed: Sequence[str]) -> None:
    """Let ``con`` read exactly the files ``allowed`` and nothing else, for good.

    Parameters
    ----------
    con : duckdb.DuckDBPyConnection
        A fresh connection (in-memory, or a database file opened read-only).
    allowed : sequence of str
        The checked files (real paths); empty for a database read from its own tables.
    """
    listed = ", ".join("'" + str(p).replace("'", "''") + "'" for p in allowed)
    con.execute(f"SET allowed_paths = [{listed}]")
    con.execute("SET enable_external_access = false")
    con.execute("SET autoinstall_known_extensions = false")
    con.execute("SET autoload_known_extensions = false")
    con.execute("SET lock_configuration = true")


def duckdb_message(exc: BaseException) -> str:
    """DuckDB's error as one line for a message, or a neutral sentence when it is a refused file access.

    Parameters
    ----------
    exc : BaseException
        What DuckDB raised.

    Returns
    -------
    str
        The first line of DuckDB's message; for a permission error (a view, macro or query that
        reads a file the connection may not read) a sentence that does not name the file.
    """
    text = str(exc)
    if type(exc).__name__ == "PermissionException" or text.startswith("Permission Error"):
        return (
            "it reads a file the connection may not read (a view or macro of the database that reads files, or "
            "a file outside the checked ones). Connect the files themselves, or a table holding the rows"
        )
    return text.splitlines()[0] if text else type(exc).__name__
