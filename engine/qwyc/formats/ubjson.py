"""A bounded decoder of Universal Binary JSON (the format of XGBoost's ``.ubj`` model files).

UBJSON (ubjson.org, draft 12): one marker byte per value — ``Z`` null, ``N`` no-op,
``T``/``F``, integers ``i`` (int8) ``U`` (uint8) ``I`` (int16) ``l`` (int32) ``L``
(int64), floats ``d`` (float32) ``D`` (float64), ``H`` high-precision number (as
text), ``C`` char, ``S`` string (length, then UTF-8), ``[`` arrays and ``{`` objects
(keys are strings without the ``S`` marker), optionally with ``$`` a single element
type and ``#`` a count. All numbers are big-endian.

Written for untrusted bytes: every count is checked against the bytes that remain
before anything is allocated (a typed array's count times its element size; other
containers at least one byte per element), element types without a payload cannot
be counted, nesting is limited, and typed numeric arrays become NumPy arrays
(one ``frombuffer`` each) rather than lists.
"""

from __future__ import annotations

import struct

import numpy as np

from ...errors import InputError

__all__ = ["decode_ubjson"]

_NUMERIC = {
    b"i": np.dtype(">i1"),
    b"U": np.dtype(">u1"),
    b"I": np.dtype(">i2"),
    b"l": np.dtype(">i4"),
    b"L": np.dtype(">i8"),
    b"d": np.dtype(">f4"),
    b"D": np.dtype(">f8"),
}
_INT_MARKERS = (b"i", b"U", b"I", b"l", b"L")


class _Error(Exception):
    pass


class _Reader:
    def __init__(self, raw: bytes, max_depth: int):
        self.raw = memoryview(raw)
        self.pos = 0
        self.max_depth = max_depth

    def take(self, n: int) -> memoryview:
        if n < 0 or self.pos + n > len(self.raw):
            raise _Error(f"the data ends early (byte {self.pos:,} needs {n:,} more)")
        out = self.raw[self.pos : self.pos + n]
        self.pos += n
        return out

    def marker(self) -> bytes:
        m = bytes(self.take(1))
        while m == b"N":  # no-op
            m = bytes(self.take(1))
        return m

    def number(self, m: bytes):
        dtype = _NUMERIC[m]
        value = np.frombuffer(self.take(dtype.itemsize), dtype=dtype)[0]
        return float(value) if dtype.kind == "f" else int(value)

    def count(self) -> int:
        m = self.marker()
        if m not in _INT_MARKERS:
            raise _Error(f"a length has marker {m!r}, not an integer marker")
        n = self.number(m)
        if n < 0:
            raise _Error(f"a length is negative ({n})")
        return n

    def string(self) -> str:
        n = self.count()
        try:
            return bytes(self.take(n)).decode("utf-8")
        except UnicodeDecodeError:
            raise _Error(f"a string before byte {self.pos:,} is not UTF-8") from None

    def value(self, m: bytes, depth: int):
        if m in _NUMERIC:
            return self.number(m)
        if m == b"Z":
            return None
        if m == b"T":
            return True
        if m == b"F":
            return False
        if m == b"S" or m == b"H":  # a high-precision number is kept as its text
            return self.string()
        if m == b"C":
            return bytes(self.take(1)).decode("latin-1")
        if m in (b"[", b"{"):
            if depth >= self.max_depth:
                raise _Error(f"containers nest deeper than {self.max_depth} levels")
            return self.container(m == b"{", depth + 1)
        raise _Error(f"unknown marker {m!r} at byte {self.pos - 1:,}")

    def container(self, is_object: bool, depth: int):
        kind, n = None, None
        m = self.marker()
        if m == b"$":
            kind = bytes(self.take(1))
            m = self.marker()
            if m != b"#":
                raise _Error("a typed container has no count")
        if m == b"#":
            n = self.count()
            m = None
        if kind is not None:
            if kind in (b"Z", b"N", b"T", b"F"):
                raise _Error(f"a container of {kind!r} values without payload")
            if not is_object and kind in _NUMERIC:
                dtype = _NUMERIC[kind]
                data = self.take(n * dtype.itemsize)  # checked against the remaining bytes first
                return np.frombuffer(data, dtype=dtype).astype(dtype.newbyteorder("="))
        if n is not None and n > len(self.raw) - self.pos:
            raise _Error(f"a container declares {n:,} elements, more than the bytes left")
        items: list | dict = {} if is_object else []
        i = 0
        while True:
            if n is not None:
                if i == n:
                    break
                if is_object:
                    key = self.string()
                mk = kind if kind is not None else self.marker()
            else:
                if m is None:
                    m = self.marker()
                if m == (b"}" if is_object else b"]"):
                    break
                if is_object:
                    self.pos -= 1  # the "marker" was the key's length marker
                    key = self.string()
                    mk = self.marker()
                else:
                    mk = m
                m = None
            item = self.value(mk, depth)
            if is_object:
                items[key] = item
            else:
                items.append(item)
            i += 1
        return items


def decode_ubjson(raw: bytes, *, what: str, max_depth: int = 64):
    """Decode one UBJSON value from ``raw`` (nothing may follow it).

    Parameters
    ----------
    raw : bytes
        The encoded document.
    what : str
        What the document is, for messages.
    max_depth : int
        Deepest nesting of arrays and objects accepted.

    Returns
    -------
    Any
        dicts, lists, str, int, float, bool, None; typed numeric arrays as NumPy arrays
        (native byte order).

    Raises
    ------
    InputError
        Malformed, truncated, too deep, or a count larger than the data.
    """
    reader = _Reader(raw, max_depth)
    try:
        value = reader.value(reader.marker(), 0)
        if reader.pos != len(reader.raw):
            raise _Error(f"{len(reader.raw) - reader.pos:,} bytes follow the document")
    except (_Error, struct.error) as exc:
        raise InputError(f"The {what} is not valid UBJSON ({exc}).") from None
    return value
