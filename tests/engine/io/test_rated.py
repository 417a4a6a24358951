"""Loader: formats, detection, and the promised error messages."""

import gzip
import io

import numpy as np
import pandas as pd
import pytest

from engine.errors import RatedDataError
from engine.io import ColumnMapping, detect_columns, load_rated, read_table
from engine.io._rated import parse_labels


def csv_bytes(text: str) -> bytes:
    return text.strip().encode() + b"\n"


GOOD = """doc_id,score_a,score_b,label,weight,region
1,0.9,0.8,tp,1,north
2,0.7,0.2,fp,2,south
3,0.5,0.6,,1,north
4,0.4,0.9,TP,1.5,
5,0.3,0.1,Fp,1,south
"""


def test_good_file_detects_columns_and_counts_unrated():
    d = load_rated(csv_bytes(GOOD))
    assert d.score_names == ("score_a", "score_b")
    assert d.mapping.label_col == "label" and d.mapping.weight_col == "weight" and d.mapping.group_col == "region"
    assert d.mapping.ignored_cols == ("doc_id",)
    assert d.n_read == 5 and d.n_rated == 4 and d.n_unrated == 1
    np.testing.assert_array_equal(d.unrated_rows, [2])
    np.testing.assert_array_equal(d.labels, [1, 0, 1, 0])
    np.testing.assert_array_equal(d.weights, [1, 2, 1.5, 1])
    np.testing.assert_array_equal(d.rating_floor, [0.3, 0.1])
    assert list(d.groups) == ["north", "south", "(missing)", "south"]
    assert any("unrated" in w and "row 3" in w for w in d.warnings)
    assert any("no group" in w for w in d.warnings)
    assert d.positives == 2.5 and d.prevalence_among_rated == pytest.approx(2.5 / 5.5)
    assert len(d.fingerprint) == 64


def test_rows_of_one_group_share_one_text_object():
    # the server holds a dataset once for every session: 10^6 rows of four regions are 8 MB of references, not
    # 10^6 texts
    rng = np.random.default_rng(3)
    region = rng.choice(np.array(["north", "south", "", "7"], dtype=object), 2_000)
    frame = pd.DataFrame({"score": rng.random(2_000), "label": rng.integers(0, 2, 2_000), "region": region})
    frame.loc[frame.index[::97], "region"] = None
    raw = frame.to_csv(index=False).encode()
    d = load_rated(raw)
    # the oracle: every cell's own text, as the file reads ("" is a missing cell in a CSV)
    text = read_table(raw).frame["region"].astype("string").fillna("(missing)").to_numpy(dtype=object)
    assert d.groups.dtype == object and d.groups.tolist() == text.tolist()
    assert len({id(g) for g in d.groups}) == len(set(text.tolist()))


@pytest.mark.parametrize("sep", [",", ";", "\t", "|"])
def test_delimiters_gzip_and_file_objects(sep):
    text = GOOD.replace(",", sep)
    for raw in (csv_bytes(text), gzip.compress(csv_bytes(text))):
        d = load_rated(io.BytesIO(raw))
        assert d.n_rated == 4 and d.score_names == ("score_a", "score_b")


def test_parquet_path_and_buffer(tmp_path):
    frame = pd.DataFrame({"s1": [0.1, 0.5, 0.9], "s2": [0.3, 0.2, 0.8], "verdict": ["no", "yes", "YES"]})
    path = tmp_path / "x.parquet"
    frame.to_parquet(path)
    for src in (path, str(path), io.BytesIO(path.read_bytes())):
        d = load_rated(src)
        assert d.mapping.label_col == "verdict"
        np.testing.assert_array_equal(d.labels, [0, 1, 1])


@pytest.mark.parametrize(
    "spelling,value",
    [
        ("1", 1),
        ("0", 0),
        ("True", 1),
        ("false", 0),
        ("YES", 1),
        ("no", 0),
        ("y", 1),
        ("N", 0),
        ("tp", 1),
        ("FP", 0),
        ("pos", 1),
        ("Neg", 0),
        ("Positive", 1),
        ("negative", 0),
        (" yes ", 1),
    ],
)
def test_label_spellings(spelling, value):
    labels, unrated = parse_labels(pd.Series([spelling, None]))
    assert labels[0] == value and not unrated[0] and unrated[1]


def test_boolean_and_numeric_labels():
    labels, unrated = parse_labels(pd.Series([True, False]))
    np.testing.assert_array_equal(labels, [1, 0])
    labels, unrated = parse_labels(pd.Series([1.0, np.nan, 0.0]))
    np.testing.assert_array_equal(labels, [1, -1, 0])
    np.testing.assert_array_equal(unrated, [False, True, False])


def test_explicit_columns_override_detection():
    d = load_rated(csv_bytes(GOOD), score_cols=["score_b"], label_col="label", weight_col=None)
    assert d.score_names == ("score_b",)


@pytest.mark.parametrize(
    "content,match",
    [
        (b"", "is empty"),
        (b"   \n\n", "is empty"),
        (b"score,label\n", "no data rows"),
        (b"a,b,a\n1,2,1\n", "duplicate column names \\(ignoring case and spaces\\): 'a'"),
        (b"name,label\nx,1\ny,0\n", "No numeric score column"),
        (b"score,other\n0.1,3\n0.2,4\n", "No label column found"),
        (
            b"score,label\n0.1,1\n0.2,maybe\n0.3,0\n0.4,perhaps\n",
            r"Column 'label': unknown label values 'maybe', 'perhaps' at rows 2, 4",
        ),
        (b"score,label\n0.1,1\n0.2,2\n", r"unknown label values 2 at row 2"),
        (b"score,label\n0.1,1\nabc,0\n0.3,0\n0.4,1\n0.5,1\n0.6,1\n0.7,1\n0.8,1\n0.9,1\n1.0,1\n1.1,1\n", None),
        (b"score,label\n0.1,1\ninf,0\n", r"Score column 'score': infinite values at row 2"),
        (b"score,label\n0.1,1\n,0\n", r"Score column 'score': missing scores on rated rows at row 2"),
        (
            b"score,label,weight\n0.1,1,1\n0.2,0,-1\n0.3,1,\n",
            r"Weight column 'weight': negative, missing or non-finite weights at rows 2, 3",
        ),
        (b"score,label\n0.1,\n0.2,\n", r"Column 'label' has no rated rows"),
    ],
)
def test_error_messages_name_column_rows_and_fix(content, match):
    with pytest.raises(RatedDataError) as err:
        load_rated(content)
    msg = str(err.value)
    if match is None:  # a mostly numeric column with a typo: the score column is still found and the typo named
        assert "Score column 'score': non-numeric values 'abc' at row 2" in msg
        assert "(row 1 = first data row)" in msg
    else:
        import re

        assert re.search(match, msg), msg


def test_error_lists_at_most_five_rows():
    rows = "\n".join(f"{i / 10},bad" for i in range(12))
    with pytest.raises(RatedDataError, match=r"rows 1, 2, 3, 4, 5 and 7 more"):
        load_rated(("score,label\n" + rows + "\n").encode())


def test_unrated_rows_with_missing_scores_are_fine():
    d = load_rated(b"score,label\n0.1,1\n,\n0.3,0\n")
    assert d.n_rated == 2 and d.n_unrated == 1


def test_one_class_data_loads_with_warning():
    d = load_rated(b"score,label\n0.1,0\n0.2,0\n")
    assert any("degenerate" in w for w in d.warnings)


def test_missing_file_and_unknown_column():
    with pytest.raises(RatedDataError, match="does not exist"):
        load_rated("/no/such/file.csv")
    with pytest.raises(RatedDataError, match="score column 'nope' is not in the file"):
        load_rated(csv_bytes(GOOD), score_cols=["nope"])
    with pytest.raises(RatedDataError, match="used both as a score"):
        detect_columns(pd.DataFrame({"a": [1.0], "label": [1]}), score_cols=["a", "label"], label_col="label")


def test_bad_gzip_and_parquet():
    with pytest.raises(RatedDataError, match="gzip"):
        load_rated(b"\x1f\x8b\x08garbage")
    with pytest.raises(RatedDataError, match="Parquet"):
        load_rated(b"PAR1garbage")


def test_read_table_reports_format():
    assert read_table(csv_bytes(GOOD)).file_format == "csv"
    assert read_table(gzip.compress(csv_bytes(GOOD))).file_format == "csv.gz"


def test_column_mapping_is_hashable_for_caching():
    m = ColumnMapping(("a", "b"), "label")
    assert hash(m) == hash(ColumnMapping(("a", "b"), "label"))


def test_a_label_column_with_a_stray_value_is_still_the_likely_label():
    import numpy as np
    import pandas as pd

    from engine.io import likely_label_column

    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {"doc_id": np.arange(200), "score": rng.random(200), "answer": np.where(rng.random(200) < 0.1, "yes", "no")}
    )
    frame.loc[57, "answer"] = "maybe"
    assert likely_label_column(frame) == "answer"
    frame["answer"] = "free text"
    assert likely_label_column(frame) is None
