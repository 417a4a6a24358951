"""The model-file formats the studio reads: one table, from which every list, caption and sniff is derived.

Each :class:`ModelFormat` says what a format is called, which file extensions it
has, how its first bytes give it away and how a user saves such a file. The
readers live with the early-exit engine, one module per format
(``engine/qwyc/formats/<key>.py`` defining ``read_<key>``), and
``engine.qwyc.formats.READERS`` is derived from this table, so that sniffing an
upload here never imports the engine that evaluates models.

To add a format: write its reader module in ``engine/qwyc/formats/``, add one
line to :data:`MODEL_FORMATS` here, and its tests.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

__all__ = [
    "ModelFormat",
    "MODEL_FORMATS",
    "model_format",
    "model_format_by_key",
    "model_file_extensions",
    "how_to_save_models",
    "model_formats_sentence",
    "model_file_example",
]


@dataclass(frozen=True)
class ModelFormat:
    """One model-file format.

    Attributes
    ----------
    key : str
        Identifier (``"lightgbm"``); the key of its reader in ``engine.qwyc.formats.READERS``.
    title : str
        Name for people (``"LightGBM text"``).
    extensions : tuple of str
        Usual file extensions, without the dot.
    sniff : callable
        ``sniff(raw) -> bool``: whether the bytes look like this format (cheap, first bytes only).
    how_to_save : str
        How a user writes such a file, as a fragment of a sentence.
    example : str
        What the start of such a file looks like.
    """

    key: str
    title: str
    extensions: tuple[str, ...]
    sniff: Callable[[bytes], bool]
    how_to_save: str
    example: str


def _is_lightgbm(raw: bytes) -> bool:
    head = raw[:200]
    return head.startswith((b"tree\n", b"tree\r\n")) or b"\nversion=v" in head


def _is_skops(raw: bytes) -> bool:
    return raw[:2] == b"PK" and b"schema.json" in raw[-4096:] + raw[:4096]


def _is_xgboost(raw: bytes) -> bool:
    head = raw[:4096]
    if head.lstrip()[:1] == b"{" and b'"learner"' in raw[:200_000]:  # JSON
        return True
    return head[:1] == b"{" and b"learner" in head  # UBJSON: an object whose first keys include learner


#: every model format, in the order they are tried
MODEL_FORMATS: tuple[ModelFormat, ...] = (
    ModelFormat(
        "lightgbm",
        "LightGBM text",
        ("txt", "model"),
        _is_lightgbm,
        "a LightGBM model with booster.save_model('model.txt')",
        "tree\nversion=v4\nnum_class=1\nnum_tree_per_iteration=1\nobjective=binary sigmoid:1\n...",
    ),
    ModelFormat(
        "skops",
        "scikit-learn skops",
        ("skops",),
        _is_skops,
        "a scikit-learn GradientBoostingClassifier or HistGradientBoostingClassifier with "
        "skops.io.dump(model, 'model.skops')",
        "a zip archive: schema.json and .npy arrays",
    ),
    ModelFormat(
        "xgboost",
        "XGBoost JSON/UBJSON",
        ("json", "ubj"),
        _is_xgboost,
        "an XGBoost model with booster.save_model('model.json') (or 'model.ubj')",
        '{"learner": {"objective": {"name": "binary:logistic"}, "gradient_booster": {"name": "gbtree", ...',
    ),
)


def model_format(raw: bytes) -> str | None:
    """The key of the format whose sniffer recognises ``raw`` (first match in :data:`MODEL_FORMATS`), or None.

    Parameters
    ----------
    raw : bytes
        A file's content.

    Returns
    -------
    str or None
        ``"lightgbm"``, ``"skops"``, ``"xgboost"`` ... or None when no format matches.
    """
    return next((f.key for f in MODEL_FORMATS if f.sniff(raw)), None)


def model_format_by_key(key: str) -> ModelFormat:
    """The :class:`ModelFormat` with this key.

    Parameters
    ----------
    key : str
        A format key (``"lightgbm"``).

    Returns
    -------
    ModelFormat

    Raises
    ------
    KeyError
        No such format.
    """
    for f in MODEL_FORMATS:
        if f.key == key:
            return f
    raise KeyError(key)


def model_file_extensions() -> tuple[str, ...]:
    """Every model file extension, in registry order (for an uploader's accepted types).

    Returns
    -------
    tuple of str
        Extensions without the dot.
    """
    return tuple(e for f in MODEL_FORMATS for e in f.extensions)


def model_formats_sentence() -> str:
    """The formats for people, with their extensions (for captions, help texts and messages).

    Returns
    -------
    str
        'LightGBM text (.txt/.model), scikit-learn skops (.skops) or XGBoost JSON/UBJSON (.json/.ubj)'.
    """
    names = [f"{f.title} (.{'/.'.join(f.extensions)})" for f in MODEL_FORMATS]
    return ", ".join(names[:-1]) + " or " + names[-1] if len(names) > 1 else names[0]


def how_to_save_models() -> str:
    """How to save a file of every format, as one clause.

    Returns
    -------
    str
        'save a LightGBM model with ..., a scikit-learn ... or an XGBoost model with ...'.
    """
    parts = [f.how_to_save for f in MODEL_FORMATS]
    return "save " + (", ".join(parts[:-1]) + " or " + parts[-1] if len(parts) > 1 else parts[0])


def model_file_example() -> str:
    """What the start of a file of each format looks like.

    Returns
    -------
    str
        One paragraph per format: its title, then the example.
    """
    return "\n\n".join(f"{f.title}:\n{f.example}" for f in MODEL_FORMATS)
