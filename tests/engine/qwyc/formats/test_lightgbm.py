"""LightGBM text read by our own parser: the crashers of issue 21 are one-line input errors, in-process."""

import lightgbm  # noqa: F401 (a declared dependency: fails, never skips)
import numpy as np
import pytest

from engine.qwyc.formats import read_lightgbm
from tests.fuzz.model_corpus import assert_refused, lightgbm_crashers, lightgbm_text

CRASHERS = lightgbm_crashers()
EXPECTED = {  # the four files that crashed LightGBM (SIGSEGV / SIGABRT), and what the message says instead
    "half_file.txt": "truncated",
    "non_numeric_threshold.txt": "'threshold' holds 'abc', not a number",
    "split_feature_out_of_range.txt": "splits on feature 99, but the model has 4 features",
    "huge_num_leaves.txt": "nodes; at most 20,000,000 are read",
    "child_cycle.txt": "do not form a tree",
    "nan_leaf.txt": "'leaf_value' holds 'nan'",
    "decision_type_categorical.txt": "categorical splits",
}


@pytest.mark.parametrize("name", list(CRASHERS))
def test_damaged_files_are_one_line_input_errors(name):
    assert_refused(read_lightgbm, CRASHERS[name], name, EXPECTED.get(name))


def test_windows_line_endings_and_an_infinite_threshold_read_like_the_original():
    text = lightgbm_text().decode()
    crlf = read_lightgbm(text.replace("\n", "\r\n").encode(), "m.txt")
    plain = read_lightgbm(text.encode(), "m.txt")
    x = np.random.default_rng(0).normal(size=(50, 4))
    np.testing.assert_array_equal(crlf.ensemble.contributions(x), plain.ensemble.contributions(x))
    assert plain.feature_names == ("a", "b", "c", "d")


def test_missing_value_rules_follow_lightgbms_numerical_decision():
    """Hand-made stumps against LightGBM's rules (tree.h NumericalDecision), one per missing type."""

    def stump(decision_type: int) -> bytes:
        return (
            "tree\nversion=v4\nnum_class=1\nnum_tree_per_iteration=1\nlabel_index=0\nmax_feature_idx=0\n"
            "objective=binary sigmoid:1\nfeature_names=x\nfeature_infos=[-1:1]\ntree_sizes=1\n\nTree=0\n"
            "num_leaves=2\nnum_cat=0\nsplit_feature=0\nsplit_gain=1\nthreshold=0.5\n"
            f"decision_type={decision_type}\nleft_child=-1\nright_child=-2\nleaf_value=-1 1\n"
            "is_linear=0\nshrinkage=1\n\n\nend of trees\n"
        ).encode()

    x = np.array([[np.nan], [0.0], [1e-36], [0.3], [0.7]])
    left, right = -1.0, 1.0
    cases = {  # decision_type: bit 1 default left, bits 2-3 missing type (0 None, 1 Zero, 2 NaN)
        0: [left, left, left, left, right],  # None: NaN read as 0 -> 0 <= 0.5
        2: [left, left, left, left, right],
        4: [right, right, right, left, right],  # Zero, default right: NaN -> 0 and |x| <= 1e-35 go right
        6: [left, left, left, left, right],  # Zero, default left
        8: [right, left, left, left, right],  # NaN, default right: only NaN goes right
        10: [left, left, left, left, right],
    }
    for decision_type, expected in cases.items():
        model = read_lightgbm(stump(decision_type), "stump.txt")
        assert model.ensemble.contributions(x)[:, 0].tolist() == expected, decision_type
