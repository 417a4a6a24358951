"""Inputs: rated data, the paper's aggregated counts, probability batches, score matrices, public data sets and shipped samples.

Every loader returns a validated object or raises :class:`~engine.errors.InputError`
(or a subclass) whose message names the column, the rows and the fix.
"""

from ._batches import (
    BatchMapping,
    ProbabilityBatches,
    batch_columns,
    batches_from_frame,
    detect_batch_columns,
    load_batches,
)
from ._counts import counts_table, load_counts
from ._inputs import INPUT_KINDS, guess_kind
from ._model_formats import model_formats_sentence
from ._public_data import PUBLIC_DATASETS, load_public_dataset
from ._rated import ColumnMapping, RatedData, detect_columns, likely_label_column, load_rated, rated_from_frame
from ._samples import SAMPLES, sample_path, samples_of_kind
from ._score_matrix import ScoreMatrix, load_score_matrix
from ._tables import Table, read_source, read_table

__all__ = [
    # tables of any format
    "Table",
    "read_table",
    "read_source",
    # rated rows (the PN papers' input)
    "ColumnMapping",
    "RatedData",
    "load_rated",
    "rated_from_frame",
    "detect_columns",
    "likely_label_column",
    # the other inputs
    "load_counts",
    "counts_table",
    "ProbabilityBatches",
    "BatchMapping",
    "load_batches",
    "batches_from_frame",
    "batch_columns",
    "detect_batch_columns",
    "ScoreMatrix",
    "load_score_matrix",
    # shipped samples, public data sets, input kinds
    "SAMPLES",
    "sample_path",
    "samples_of_kind",
    "PUBLIC_DATASETS",
    "load_public_dataset",
    "INPUT_KINDS",
    "guess_kind",
    "model_formats_sentence",
]
