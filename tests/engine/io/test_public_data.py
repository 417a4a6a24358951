"""Public data sets load with their documented sizes and positive classes."""

import pytest

from engine.errors import InputError
from engine.io._public_data import load_public_dataset


def test_public_data_sets_load_with_their_documented_sizes():
    adult = load_public_dataset("adult")
    x, y, xt, yt = adult.x, adult.y, adult.x_test, adult.y_test
    assert len(x) == 32_561 and len(xt) == 16_281
    assert y.sum() == 7_841 and yt.sum() == 3_846
    bank = load_public_dataset("bank")
    x, y = bank.x, bank.y
    assert len(x) == 45_211 and y.sum() == 5_289 and "duration" not in x.columns
    cancer = load_public_dataset("breast_cancer")
    x, y = cancer.x, cancer.y
    assert len(x) == 569 and y.sum() == 212


def test_unknown_public_data_set_is_an_input_error():
    with pytest.raises(InputError, match="choose one of"):
        load_public_dataset("iris")
