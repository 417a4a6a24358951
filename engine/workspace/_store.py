"""The dataset store: every dataset's bytes once, under their SHA-256, in a folder or behind an fsspec URL.

A dataset is written to a temporary name beside its final one and renamed into place, so a
reader never sees half a file and two writers of the same bytes both succeed (the bytes are the
name). Every read hashes what it read and refuses bytes that no longer match their name. The
folder layout is ``<store>/<first two hex digits>/<sha256>``.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
import uuid
from pathlib import Path
from typing import IO

from ..errors import InputError

__all__ = ["DatasetStore", "SHA256", "size_message"]

SHA256 = re.compile(r"[0-9a-f]{64}")
_CHUNK = 4 * 2**20


def size_message(name: str, size: int | None, limit: int) -> str:
    """The refusal of a dataset over the size limit (``size`` None: a stream, read only up to the limit)."""
    how_big = f"more than {limit / 2**20:,.0f} MB" if size is None else f"{size / 2**20:,.1f} MB"
    return (
        f"'{name}' is {how_big}; the workspace stores datasets of at most {limit / 2**20:,.0f} MB "
        "(OPSTUDIO_MAX_DATASET_MB). Aggregate or sample it, or ask the operator to raise the limit."
    )


class DatasetStore:
    """Bytes by SHA-256 in a folder (``/srv/opstudio/datasets``) or an fsspec URL (``s3://bucket/datasets``).

    Parameters
    ----------
    location : str
        A folder, or a URL with a scheme (``file://``, ``memory://``, ``s3://`` ...) read through fsspec.
    max_bytes : int
        Largest dataset accepted.
    """

    def __init__(self, location: str, max_bytes: int):
        self.location = location
        self.max_bytes = max_bytes
        if "://" in location:
            import fsspec

            self._fs, self._root = fsspec.core.url_to_fs(location)
        else:
            self._fs, self._root = None, str(Path(location).expanduser())

    def _path(self, sha256: str) -> str:
        if not SHA256.fullmatch(sha256):
            raise InputError(f"{sha256[:80]!r} is not a SHA-256 (64 lowercase hex digits).")
        return f"{self._root}/{sha256[:2]}/{sha256}"

    def exists(self, sha256: str) -> bool:
        """Whether the store holds ``sha256``'s bytes.

        Parameters
        ----------
        sha256 : str

        Returns
        -------
        bool
        """
        path = self._path(sha256)
        return self._fs.exists(path) if self._fs is not None else os.path.isfile(path)

    def put(self, stream: IO[bytes], name: str) -> tuple[str, int]:
        """Copy a stream into the store under its SHA-256 (at most :attr:`max_bytes`).

        Parameters
        ----------
        stream : binary file object
            Read to its end in 4 MB chunks.
        name : str
            The dataset's name, for the message when it is too large.

        Returns
        -------
        (str, int)
            The SHA-256 and the size in bytes.

        Raises
        ------
        InputError
            More than :attr:`max_bytes` bytes (nothing is kept).
        """
        folder = Path(self._root) if self._fs is None else None
        if folder is not None:
            folder.mkdir(parents=True, exist_ok=True)
            tmp = tempfile.NamedTemporaryFile(dir=folder, prefix=".incoming-", delete=False)  # noqa: SIM115
        else:
            self._fs.makedirs(self._root, exist_ok=True)
            tmp_name = f"{self._root}/.incoming-{uuid.uuid4().hex}"
            tmp = self._fs.open(tmp_name, "wb")
        digest, size = hashlib.sha256(), 0
        try:
            with tmp:
                while chunk := stream.read(_CHUNK):
                    size += len(chunk)
                    if size > self.max_bytes:
                        raise InputError(size_message(name, None, self.max_bytes))
                    digest.update(chunk)
                    tmp.write(chunk)
                if folder is not None:
                    tmp.flush()
                    os.fsync(tmp.fileno())
            sha = digest.hexdigest()
            self._place(tmp.name if folder is not None else tmp_name, sha)
        except BaseException:
            self._discard(tmp.name if folder is not None else tmp_name)
            raise
        return sha, size

    def _place(self, tmp: str, sha: str) -> None:
        """Rename a complete temporary file to its final name (over a damaged copy of the same name, too)."""
        final = self._path(sha)
        if self._fs is None:
            os.makedirs(os.path.dirname(final), exist_ok=True)
            os.replace(tmp, final)  # atomic on one file system: readers see the old or the new file, whole
            return
        self._fs.makedirs(os.path.dirname(final), exist_ok=True)
        self._fs.mv(tmp, final)

    def _discard(self, tmp: str) -> None:
        try:
            if self._fs is None:
                os.unlink(tmp)
            elif self._fs.exists(tmp):
                self._fs.rm(tmp)
        except OSError:
            pass

    def get(self, sha256: str) -> bytes:
        """The bytes stored under ``sha256``, checked against it.

        Parameters
        ----------
        sha256 : str

        Returns
        -------
        bytes

        Raises
        ------
        InputError
            The store has no such bytes, or they no longer hash to ``sha256`` (damaged store).
        """
        path = self._path(sha256)
        try:
            if self._fs is None:
                data = Path(path).read_bytes()
            else:
                with self._fs.open(path, "rb") as f:
                    data = f.read()
        except FileNotFoundError:
            raise InputError(
                f"The dataset store ({self.location}) has no bytes for dataset {sha256[:12]}…; restore the store "
                "from its backup (docs/workspace.md) or add the file again."
            ) from None
        if hashlib.sha256(data).hexdigest() != sha256:
            raise InputError(
                f"The bytes of dataset {sha256[:12]}… in the store ({self.location}) no longer match their SHA-256 "
                "(the file was changed or damaged); restore it from a backup or add the original file again."
            )
        return data
