"""Making the shipped samples: seeded generators and models trained on public data, one module per family.

``python sample_data/make_samples.py`` runs :func:`write_samples`; the files are
reproducible byte for byte (gzip without timestamps). The runtime registry of the
files (:data:`engine.io.SAMPLES`) knows nothing of this package, so loading a sample
never imports the code that trains models.

Adding a sample: its entry in :data:`engine.io.SAMPLES`, a builder module here and one
line in :data:`BUILDERS` (a test checks that every shipped file has exactly one builder).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ..io._samples import SAMPLE_DIR, SAMPLES
from . import adult, bank, monitoring, satimage, synthetic
from ._files import gzip_bytes, write_csv

__all__ = ["SampleBuilder", "BUILDERS", "write_samples", "write_csv", "gzip_bytes"]


@dataclass(frozen=True)
class SampleBuilder:
    """A function that makes some of the shipped samples.

    Attributes
    ----------
    keys : tuple of str
        The keys of :data:`engine.io.SAMPLES` it makes.
    build : callable
        ``build(shared_dir) -> {key: DataFrame or bytes}``; frames are written as CSV, bytes unchanged.
    needs_shared : bool
        It reads the public data in ``../shared/data`` (skipped without it).
    """

    keys: tuple[str, ...]
    build: Callable[[Path | None], Mapping[str, pd.DataFrame | bytes]]
    needs_shared: bool = False


#: every builder, in the order they run (the batches and the Adult table read the shipped copies)
BUILDERS: tuple[SampleBuilder, ...] = (
    SampleBuilder(("synthetic", "synthetic_counts"), synthetic.build),
    SampleBuilder(("monitoring",), monitoring.build),
    SampleBuilder(("bank_batches",), bank.build_batches),
    SampleBuilder(("adult_table",), adult.build_table),
    SampleBuilder(("adult_gbt",), adult.build_model),
    SampleBuilder(("bank_full", "bank_holdout", "bank"), bank.build_scored, needs_shared=True),  # type: ignore[arg-type]
    SampleBuilder(("adult_train", "adult_test"), adult.build_raw, needs_shared=True),  # type: ignore[arg-type]
    SampleBuilder(
        ("satimage_population", "satimage_rated", "satimage_audit", "satimage_audit_design"),
        satimage.build,
        needs_shared=True,
    ),
)


def write_samples(out_dir: str | Path = SAMPLE_DIR, shared_dir: str | Path | None = None) -> dict[str, Path]:
    """Regenerate the shipped samples into ``out_dir``.

    Parameters
    ----------
    out_dir : str or pathlib.Path
        Where to write (default: the shipped ``sample_data/``).
    shared_dir : str or pathlib.Path, optional
        The ``shared`` folder with the public data; without it the builders that need it are skipped.

    Returns
    -------
    dict of str to pathlib.Path
        The files written, by sample key.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = {}
    for builder in BUILDERS:
        if builder.needs_shared and shared_dir is None:
            continue
        for key, content in builder.build(None if shared_dir is None else Path(shared_dir)).items():
            path = out / SAMPLES[key].file
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                write_csv(content, path)
            written[key] = path
    return written
