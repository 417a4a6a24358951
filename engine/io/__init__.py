"""Inputs: rated data, the paper's aggregated counts, probability batches, score matrices, public data sets and shipped samples.

Every loader returns a validated object or raises :class:`~engine.errors.InputError`
(or a subclass) whose message names the column, the rows and the fix.
"""

from .batches import (
    BatchMapping,
    ProbabilityBatches,
    batch_columns,
    batches_from_frame,
    detect_batch_columns,
    load_batches,
)
from .counts import counts_table, load_counts
from .inputs import INPUT_KINDS, InputKind, guess_kind
from .model_formats import MODEL_FORMATS, ModelFormat, model_file_extensions, model_format, model_formats_sentence
from .public_data import PUBLIC_DATASETS, PublicDataset, load_public_dataset
from .rated import (
    LABEL_VALUES,
    ColumnMapping,
    RatedData,
    detect_columns,
    detect_date_column,
    likely_label_column,
    load_rated,
    parse_labels,
    rated_from_frame,
)
from .samples import SAMPLES, Sample, sample_path, samples_of_kind
from .score_matrix import ScoreMatrix, load_score_matrix
from .tables import Source, Table, check_unique_columns, read_source, read_table

__all__ = [
    "Source",
    "Table",
    "read_table",
    "read_source",
    "check_unique_columns",
    "LABEL_VALUES",
    "ColumnMapping",
    "RatedData",
    "detect_columns",
    "likely_label_column",
    "detect_date_column",
    "parse_labels",
    "rated_from_frame",
    "load_rated",
    "counts_table",
    "load_counts",
    "BatchMapping",
    "ProbabilityBatches",
    "detect_batch_columns",
    "batches_from_frame",
    "load_batches",
    "batch_columns",
    "ScoreMatrix",
    "load_score_matrix",
    "PUBLIC_DATASETS",
    "PublicDataset",
    "load_public_dataset",
    "SAMPLES",
    "Sample",
    "sample_path",
    "samples_of_kind",
    "InputKind",
    "INPUT_KINDS",
    "guess_kind",
    "ModelFormat",
    "MODEL_FORMATS",
    "model_format",
    "model_file_extensions",
    "model_formats_sentence",
]
