"""XGBoost JSON/UBJSON checked field by field: the crashers of issue 21 are one-line input errors, in-process."""

import pytest
import xgboost  # noqa: F401 (a declared dependency: fails, never skips)

from engine.qwyc.formats import read_xgboost
from tests.fuzz.model_corpus import assert_refused, xgboost_crashers

CRASHERS = xgboost_crashers()
EXPECTED = {
    "split_index_negative.json": "splits on feature -3",
    "node_points_to_root.json": "do not form a tree",
    "no_learner_model_param.json": "has no 'learner_model_param'",
    "no_trees.json": "has no 'trees'",
    "base_score_0.json": "base_score' is 0",
    "base_score_1.json": "base_score' is 1",
    "float_index.json": "split_indices' holds values that are not integers",
    "deep_nesting.json": "at most 64 levels",
    "ubjson_huge_count.ubj": "not valid UBJSON",
}


@pytest.mark.parametrize("name", list(CRASHERS))
def test_damaged_files_are_one_line_input_errors(name):
    assert_refused(read_xgboost, CRASHERS[name], name, EXPECTED.get(name))
