"""Reading untrusted bytes within limits: JSON documents, zip archives and gzip streams.

Every artefact a user hands the studio (a policy, a model JSON, a decision record, a
skops or NPZ archive, a gzip table) is read through these functions, so that a small
file cannot make the server allocate gigabytes or recurse until it crashes:

* :func:`parse_json` refuses documents over a byte limit *before* parsing and
  measures the nesting depth with one linear, vectorised pass over the bytes (strings
  masked out), so Python's recursive decoder never sees a deeper document;
* :func:`check_zip` inflates every member of an archive in bounded chunks and
  counts the bytes it actually produces (a member's declared size can lie), refusing
  too many members, too large a member or too large a total;
* :func:`inflate_gzip` does the same for gzip streams (several members allowed).

Each refusal is an :class:`~engine.errors.InputError` that names the file, the limit
and what to do.
"""

from __future__ import annotations

import io
import json
import zipfile
import zlib
from typing import Any

import numpy as np

from .errors import InputError

__all__ = [
    "parse_json",
    "json_depth",
    "check_zip",
    "inflate_gzip",
    "MAX_JSON_BYTES",
    "MAX_JSON_DEPTH",
    "MAX_ZIP_MEMBERS",
    "MAX_ZIP_MEMBER_BYTES",
    "MAX_ZIP_TOTAL_BYTES",
]

#: largest JSON document read (a policy, a model JSON, a decision record, an XGBoost model)
MAX_JSON_BYTES = 64 * 1024 * 1024
#: deepest nesting of objects and arrays in a JSON document (an XGBoost model needs 6, a record 30)
MAX_JSON_DEPTH = 64
#: most members of a zip archive (skops, NPZ)
MAX_ZIP_MEMBERS = 10_000
#: largest member of a zip archive once inflated
MAX_ZIP_MEMBER_BYTES = 256 * 1024 * 1024
#: largest total of a zip archive's members once inflated
MAX_ZIP_TOTAL_BYTES = 512 * 1024 * 1024

_CHUNK = 4 * 1024 * 1024
_QUOTE, _BACKSLASH = ord('"'), ord("\\")


def json_depth(raw: bytes) -> int:
    """The deepest nesting of ``{`` / ``[`` in a JSON text, brackets inside strings ignored.

    One linear pass, vectorised by blocks of :data:`_CHUNK` bytes (memory bounded whatever the
    size): a quote is escaped when an odd run of backslashes precedes it, the unescaped quotes
    open and close strings, and the brackets outside strings step the depth. No regular
    expression: a pattern for JSON strings backtracks on text such as ``"\\"\\"\\"…`` without
    a closing quote (140 kB took minutes).

    Parameters
    ----------
    raw : bytes
        The JSON text (UTF-8).

    Returns
    -------
    int
        0 for a scalar document, 1 for ``[]`` or ``{}``, and so on. Unbalanced text
        returns the deepest level reached (the parser then reports the syntax error).
    """
    data = np.frombuffer(bytes(raw), dtype=np.uint8)
    run, inside, depth, deepest = 0, 0, 0, 0  # carried across blocks: backslashes ending the block, in a string
    for lo in range(0, data.size, _CHUNK):
        codes = data[lo : lo + _CHUNK]
        index = np.arange(codes.size)
        last_other = np.maximum.accumulate(np.where(codes != _BACKSLASH, index, -1))
        # backslashes ending at each byte (the run may begin in an earlier block)
        ending = np.where(last_other >= 0, index - last_other, index + 1 + run)
        before = np.r_[run, ending[:-1]]
        opens = (codes == _QUOTE) & (before % 2 == 0)
        flips = np.cumsum(opens, dtype=np.int64)
        outside = (inside + flips - opens) % 2 == 0
        step = np.zeros(codes.size, dtype=np.int8)
        step[((codes == ord("{")) | (codes == ord("["))) & outside] = 1
        step[((codes == ord("}")) | (codes == ord("]"))) & outside] = -1
        levels = depth + np.cumsum(step, dtype=np.int64)
        deepest = max(deepest, int(levels.max(initial=0)))
        run, inside, depth = int(ending[-1]), int((inside + flips[-1]) % 2), int(levels[-1])
    return deepest


def parse_json(
    raw: bytes | str,
    *,
    what: str,
    max_bytes: int = MAX_JSON_BYTES,
    max_depth: int = MAX_JSON_DEPTH,
    allow_nan: bool = False,
) -> Any:
    """Parse a JSON document after checking its size and nesting.

    Parameters
    ----------
    raw : bytes or str
        The document.
    what : str
        What the document is, for messages (``"policy 'p.json'"``).
    max_bytes : int
        Largest document accepted, in bytes (UTF-8).
    max_depth : int
        Deepest nesting of objects and arrays accepted.
    allow_nan : bool
        Read the non-standard ``NaN`` / ``Infinity`` / ``-Infinity`` literals as floats (some
        libraries write them, e.g. XGBoost for categorical splits); the caller then validates
        every value. By default they are refused: they are not JSON.

    Returns
    -------
    Any
        The parsed value.

    Raises
    ------
    InputError
        Too large, too deep, not UTF-8, or not valid JSON (with line and column).
    """
    data = raw.encode("utf-8") if isinstance(raw, str) else bytes(raw)
    if len(data) > max_bytes:
        raise InputError(
            f"The {what} is {len(data) / 2**20:,.1f} MB; at most {max_bytes / 2**20:,.0f} MB of JSON "
            "is read. It was not read."
        )
    depth = json_depth(data)
    if depth > max_depth:
        raise InputError(
            f"The {what} nests objects or arrays {depth} deep; at most {max_depth} levels are read. It was not read."
        )
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"The {what} is not UTF-8 text (byte {exc.start}); save it as UTF-8 JSON.") from None
    try:
        return json.loads(text) if allow_nan else json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"The {what} is not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})."
        ) from None
    except ValueError as exc:  # a NaN / Infinity literal, or an integer too long to convert
        raise InputError(f"The {what} is not valid JSON ({str(exc)[:120]}).") from None


def _refuse_constant(name: str):
    raise InputError(f"{name} is not a JSON number; write the value as a string or leave it out")


def check_zip(
    raw: bytes,
    *,
    what: str,
    max_members: int = MAX_ZIP_MEMBERS,
    max_member_bytes: int = MAX_ZIP_MEMBER_BYTES,
    max_total_bytes: int = MAX_ZIP_TOTAL_BYTES,
) -> list[str]:
    """Inflate every member of a zip archive in bounded chunks, counting the bytes actually produced.

    Call it before handing the archive to a library that would inflate members whole
    (skops, ``numpy.load``): a member that declares 1 kB and inflates to 2 GB is
    stopped after the limit, not after the allocation.

    Parameters
    ----------
    raw : bytes
        The archive.
    what : str
        What the file is, for messages.
    max_members, max_member_bytes, max_total_bytes : int
        Limits on the number of members and on inflated bytes.

    Returns
    -------
    list of str
        The member names, in archive order.

    Raises
    ------
    InputError
        Not a zip archive, a corrupt member, or a limit exceeded.
    """
    try:
        archive = zipfile.ZipFile(io.BytesIO(raw))
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise InputError(f"The {what} is not a readable zip archive ({str(exc)[:120]}).") from None
    with archive:
        infos = archive.infolist()
        if len(infos) > max_members:
            raise InputError(
                f"The {what} holds {len(infos):,} files; at most {max_members:,} are read. It was not read."
            )
        total = 0
        for info in infos:
            member = 0
            try:
                with archive.open(info) as stream:
                    while chunk := stream.read(_CHUNK):
                        member += len(chunk)
                        total += len(chunk)
                        if member > max_member_bytes or total > max_total_bytes:
                            raise InputError(
                                f"The {what} inflates to more than "
                                f"{min(max_member_bytes, max_total_bytes) / 2**20:,.0f} MB (member "
                                f"{info.filename[:80]!r}): a compression bomb or a far too large model. "
                                "It was not read."
                            )
            except InputError:
                raise
            except (
                zipfile.BadZipFile,
                zlib.error,
                OSError,
                EOFError,
                NotImplementedError,
                RuntimeError,
                ValueError,
            ) as exc:
                raise InputError(
                    f"The {what} has a corrupt member {info.filename[:80]!r} ({str(exc)[:120]})."
                ) from None
        return [info.filename for info in infos]


def inflate_gzip(raw: bytes, *, what: str, max_bytes: int) -> bytes:
    """Decompress gzip data (several members allowed), refusing more than ``max_bytes`` as it inflates.

    Parameters
    ----------
    raw : bytes
        gzip-compressed bytes.
    what : str
        What the file is, for messages.
    max_bytes : int
        Largest decompressed size accepted.

    Returns
    -------
    bytes
        The decompressed bytes.

    Raises
    ------
    InputError
        Corrupt or truncated data, or more than ``max_bytes`` once inflated.
    """
    out, total, data = [], 0, raw
    try:
        while data:
            inflater = zlib.decompressobj(wbits=31)
            while data:
                chunk = inflater.decompress(data, 16 * 1024 * 1024)
                total += len(chunk)
                if total > max_bytes:
                    raise InputError(
                        f"The {what} inflates to more than {max_bytes / 2**20:,.0f} MB "
                        "(a compression bomb or a far too large file); it was not read."
                    )
                out.append(chunk)
                data = inflater.unconsumed_tail
                if inflater.eof:
                    break
            if not inflater.eof:
                raise EOFError("the compressed stream ends early")
            data = inflater.unused_data.lstrip(b"\x00")
    except (zlib.error, EOFError) as exc:
        raise InputError(
            f"The {what} looks gzip-compressed but cannot be decompressed ({exc}). "
            "Re-compress it or give the uncompressed file."
        ) from None
    return b"".join(out)
