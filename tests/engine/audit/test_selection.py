"""Selection keys and the bottom-k selection: hashlib's digits, every document equally likely, candidates suffice."""

import hashlib

import numpy as np
import pandas as pd
import pytest

from engine.audit._selection import check_seed, cutoffs, id_texts, select, selection_keys
from engine.errors import InputError


def test_keys_are_the_first_16_hex_digits_of_md5_of_seed_colon_id():
    ids = ["17", "doc-é", "", "-3"]
    assert list(selection_keys(ids, 42)) == [hashlib.md5(f"42:{i}".encode()).hexdigest()[:16] for i in ids]


def test_id_texts_are_decimal_integers_or_text_and_refuse_the_rest():
    assert list(id_texts(pd.Series([7, -3, 10**15]))) == ["7", "-3", "1000000000000000"]
    assert list(id_texts(pd.Series(["007", "a b"]))) == ["007", "a b"]
    for bad in (pd.Series([1.5, 2.0]), pd.Series([True, False]), pd.Series(["a", None]), pd.Series(["a", 3])):
        with pytest.raises(InputError, match="Id column"):
            id_texts(bad)


def test_seed_must_fit_32_bits():
    assert check_seed(0) == 0 and check_seed(2**32 - 1) == 2**32 - 1
    for bad in (-1, 2**32, 1.5, True, "3"):
        with pytest.raises(InputError, match="--seed"):
            check_seed(bad)


def _population(rows=3000, strata=3, seed=0):
    rng = np.random.default_rng(seed)
    ids = np.array([f"d{i}" for i in range(rows)], dtype=object)
    return ids, rng.integers(0, strata, rows)


def test_candidates_below_the_cutoffs_give_the_bottom_k_of_the_whole_stratum():
    ids, stratum = _population()
    sizes = np.array([40, 5, 120])
    keys = selection_keys(ids, 9)
    docs = np.bincount(stratum, minlength=3)
    cut = np.array([c or "g" for c in cutoffs(docs, sizes)], dtype=object)
    keep = keys < cut[stratum]
    candidates = pd.DataFrame({"id": ids[keep], "score": 0.0, "stratum": stratum[keep], "key": keys[keep]})
    chosen, short = select(candidates, sizes)
    assert short == []
    for h in range(3):  # oracle: sort the whole stratum by (key, id)
        whole = sorted(zip(keys[stratum == h], ids[stratum == h]))[: sizes[h]]
        assert list(chosen.loc[chosen["stratum"] == h, "id"]) == [i for _, i in whole]


def test_too_few_candidates_are_reported_and_repeated_ids_refused():
    frame = pd.DataFrame({"id": ["a", "b"], "score": 0.0, "stratum": [0, 0], "key": ["01", "02"]})
    assert select(frame, [3])[1] == [0]
    frame = pd.DataFrame({"id": ["a", "a"], "score": 0.0, "stratum": [0, 0], "key": ["01", "01"]})
    with pytest.raises(InputError, match="more than one document"):
        select(frame, [1])


def test_every_document_is_equally_likely_to_be_selected():
    # 400 seeds, 50 documents, 10 drawn: each inclusion count ~ Binomial(400, 0.2) (mean 80, sd 8)
    ids = np.array([str(i) for i in range(50)], dtype=object)
    counts = np.zeros(50)
    for seed in range(400):
        counts[np.argsort(selection_keys(ids, seed), kind="stable")[:10]] += 1
    assert np.all(np.abs(counts - 80) < 5 * 8)
    chi2 = np.sum((counts - 80) ** 2 / 80)  # ~ chi-square with 49 df (conservative: draws are without replacement)
    assert chi2 < 90
