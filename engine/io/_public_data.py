"""Public labelled data sets the studio trains its demonstration models on (offline copies).

* ``breast_cancer`` - scikit-learn's Breast cancer Wisconsin (569 rows).
* ``bank`` - UCI Bank Marketing, ``bank-full`` (Moro, Cortez & Rita 2014, CC BY 4.0).
* ``adult`` - UCI Adult, original train and test files (Becker & Kohavi 1996, CC BY 4.0).

The Bank and Adult files ship in ``sample_data/`` (see its README for sources and
licences).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..errors import InputError
from ._samples import sample_path

__all__ = ["PUBLIC_DATASETS", "PublicDataset", "load_public_dataset", "ADULT_COLUMNS"]

#: key -> description
PUBLIC_DATASETS = {
    "breast_cancer": "Breast cancer Wisconsin (scikit-learn, 569 rows, 37 % positive)",
    "bank": "UCI Bank Marketing (45,211 rows, 11.7 % positive; `duration` dropped)",
    "adult": "UCI Adult (48,842 rows, 24 % earn >50K)",
}

ADULT_COLUMNS = (
    "age",
    "workclass",
    "fnlwgt",
    "education",
    "education_num",
    "marital_status",
    "occupation",
    "relationship",
    "race",
    "sex",
    "capital_gain",
    "capital_loss",
    "hours_per_week",
    "native_country",
    "income",
)


@dataclass(frozen=True)
class PublicDataset:
    """Raw features (a DataFrame, categories as text) and 0/1 labels; ``x_test`` is None without an official split.

    Attributes
    ----------
    name : str
        Key of :data:`PUBLIC_DATASETS`.
    description : str
        What the data set is.
    x : pandas.DataFrame
        Features (the official training file when there is a split).
    y : numpy.ndarray of int
        0/1 labels of ``x``.
    x_test : pandas.DataFrame or None
        Official test features.
    y_test : numpy.ndarray of int or None
        Their labels.
    """

    name: str
    description: str
    x: pd.DataFrame
    y: np.ndarray
    x_test: pd.DataFrame | None = None
    y_test: np.ndarray | None = None


def load_public_dataset(name: str) -> PublicDataset:
    """One of :data:`PUBLIC_DATASETS` with its positive class coded 1.

    Breast cancer: malignant = 1. Bank: subscribed (``y = yes``) = 1, ``duration``
    dropped (known only after the call: it leaks the label). Adult: income > 50K = 1,
    with the official train / test files as ``x`` / ``x_test``.

    Parameters
    ----------
    name : {"breast_cancer", "bank", "adult"}
        Key of :data:`PUBLIC_DATASETS`.

    Returns
    -------
    PublicDataset
        Features and labels (read offline: scikit-learn's copy or the shipped files).

    Raises
    ------
    InputError
        An unknown name.
    """
    if name == "breast_cancer":
        from sklearn.datasets import load_breast_cancer

        data = load_breast_cancer(as_frame=True)
        # scikit-learn codes malignant as 0
        return PublicDataset(name, PUBLIC_DATASETS[name], data.data, (data.target.to_numpy() == 0).astype(int))
    if name == "bank":
        df = pd.read_csv(sample_path("bank_full"), sep=";")
        return PublicDataset(
            name, PUBLIC_DATASETS[name], df.drop(columns=["y", "duration"]), (df["y"] == "yes").to_numpy().astype(int)
        )
    if name == "adult":
        read = dict(header=None, names=list(ADULT_COLUMNS), skipinitialspace=True, na_values="?")
        train = pd.read_csv(sample_path("adult_train"), **read).dropna(how="all")
        test = pd.read_csv(sample_path("adult_test"), skiprows=1, **read).dropna(how="all")
        y_train = train.pop("income").str.startswith(">50K").to_numpy().astype(int)
        y_test = test.pop("income").str.startswith(">50K").to_numpy().astype(int)
        return PublicDataset(name, PUBLIC_DATASETS[name], train, y_train, test, y_test)
    raise InputError(f"unknown data set {name!r}; choose one of {', '.join(PUBLIC_DATASETS)}")
