"""UCI Adult samples: the training table of the Constrained training page, the Early exit page's model, and
unchanged copies of the files.

Becker, B. & Kohavi, R. (1996). *Adult.* UCI Machine Learning Repository (CC BY 4.0).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ..io._public_data import load_public_dataset
from ._files import gzip_bytes, reproducible_skops

__all__ = ["adult_training_table", "build_table", "build_model", "build_raw"]


def adult_training_table() -> pd.DataFrame:
    """UCI Adult train and test files as one training table: features, ``income_over_50k``, ``split``."""
    adult = load_public_dataset("adult")
    parts = []
    for x, y, split in ((adult.x, adult.y, "train"), (adult.x_test, adult.y_test, "test")):
        parts.append(x.assign(income_over_50k=np.where(np.asarray(y) == 1, "yes", "no"), split=split))  # type: ignore[union-attr]
    return pd.concat(parts, ignore_index=True)


def build_table(shared_dir: Path | None = None) -> dict[str, pd.DataFrame]:
    """The ``adult_table`` sample (from the shipped copies of the Adult files).

    Parameters
    ----------
    shared_dir : pathlib.Path, optional
        Not used.

    Returns
    -------
    dict of str to pandas.DataFrame
        ``{"adult_table": ...}``.
    """
    return {"adult_table": adult_training_table()}


def build_model(shared_dir: Path | None = None) -> dict[str, bytes]:
    """The ``adult_gbt`` sample: :func:`engine.qwyc.train_adult_gbt`'s 500 trees of depth 5 as a skops file.

    Trained on one thread (the same trees on any machine) and written by
    :func:`~engine.sample_builders._files.reproducible_skops`, so the bytes are the same every run.

    Parameters
    ----------
    shared_dir : pathlib.Path, optional
        Not used (the shipped copies of the Adult files are read).

    Returns
    -------
    dict of str to bytes
        ``{"adult_gbt": ...}``.
    """
    import skops.io as sio
    from threadpoolctl import threadpool_limits

    from ..qwyc._ensembles import ADULT_GBT, train_adult_gbt

    with threadpool_limits(limits=1):
        trained = train_adult_gbt(max_iter=ADULT_GBT["max_iter"], max_depth=ADULT_GBT["max_depth"])
    return {"adult_gbt": reproducible_skops(sio.dumps(trained.model))}


def build_raw(shared_dir: Path) -> dict[str, bytes]:
    """``adult_train`` and ``adult_test``: the UCI files, unchanged, gzip-compressed without a timestamp.

    Parameters
    ----------
    shared_dir : pathlib.Path
        The ``shared`` folder holding ``data/adult/adult.data`` and ``adult.test``.

    Returns
    -------
    dict of str to bytes
        The compressed files by sample key.
    """
    folder = Path(shared_dir) / "data" / "adult"
    return {
        "adult_train": gzip_bytes((folder / "adult.data").read_bytes()),
        "adult_test": gzip_bytes((folder / "adult.test").read_bytes()),
    }
