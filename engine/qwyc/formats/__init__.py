"""Readers of model files, one module per format, keyed like :data:`engine.io.model_formats.MODEL_FORMATS`.

Every reader takes the file's bytes and name and returns a
:class:`~engine.qwyc.formats._common.ReadModel` (trees whose sum plus the bias is the
library's own raw margin), or raises :class:`~engine.errors.InputError`. None of them
hands the bytes to a native library: LightGBM text and XGBoost JSON/UBJSON are parsed
here, skops files are audited node by node before skops constructs anything.

To add a format: its reader module here, one entry in :data:`READERS`, one line in
``engine.io.model_formats.MODEL_FORMATS``, and its tests.
"""

from __future__ import annotations

from typing import Callable

from ._common import ReadModel
from .lightgbm import read_lightgbm
from .skops import SKOPS_ALLOWED, SKOPS_ALLOWED_TYPES, read_skops
from .ubjson import decode_ubjson
from .xgboost import read_xgboost

__all__ = ["READERS", "ReadModel", "read_lightgbm", "read_xgboost", "read_skops", "decode_ubjson", "SKOPS_ALLOWED",
           "SKOPS_ALLOWED_TYPES"]

#: format key -> reader(raw, name) -> ReadModel
READERS: dict[str, Callable[[bytes, str], ReadModel]] = {
    "lightgbm": read_lightgbm,
    "skops": read_skops,
    "xgboost": read_xgboost,
}
