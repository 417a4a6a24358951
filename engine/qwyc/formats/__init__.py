"""Readers of model files, one module per format of :data:`engine.io._model_formats.MODEL_FORMATS`.

Every reader takes the file's bytes and name and returns a
:class:`~engine.qwyc.formats._common.ReadModel` (trees whose sum plus the bias is the
library's own raw margin), or raises :class:`~engine.errors.InputError`. None of them
hands the bytes to a native library: LightGBM text and XGBoost JSON/UBJSON are parsed
here, skops files are audited node by node and read without skops (nothing in them is constructed).

To add a format: its reader module here, ``<key>.py`` defining ``read_<key>(raw, name)``, one line
in ``engine.io._model_formats.MODEL_FORMATS``, and its tests. :data:`READERS` is derived from that
table, so the sniffers (in ``engine.io``, which never imports this engine) and the readers cannot
drift apart.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module

from ...io._model_formats import MODEL_FORMATS
from ._common import ReadModel
from .lightgbm import read_lightgbm
from .skops import SKOPS_ALLOWED, SKOPS_ALLOWED_TYPES, read_skops
from .ubjson import decode_ubjson
from .xgboost import read_xgboost

__all__ = [
    "READERS",
    "ReadModel",
    "read_lightgbm",
    "read_xgboost",
    "read_skops",
    "decode_ubjson",
    "SKOPS_ALLOWED",
    "SKOPS_ALLOWED_TYPES",
]

#: format key -> reader(raw, name) -> ReadModel: ``read_<key>`` of this package's module ``<key>``, for every
#: registered format (a fixed module name derived from the code's own table, never from a file)
READERS: dict[str, Callable[[bytes, str], ReadModel]] = {
    f.key: getattr(import_module(f"{__name__}.{f.key}"), f"read_{f.key}") for f in MODEL_FORMATS
}
