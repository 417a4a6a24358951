"""A corpus of odd and hostile files, generated (nothing binary is committed).

Categories: encodings, delimiters and decimals, headers, ragged rows, duplicate names,
binary and other formats, compression, sizes and shapes, values (labels, numbers, weights),
the aggregated counts format, score matrices (NPZ), probability batches, injection text.
"""

from __future__ import annotations

import gzip
import io
import zipfile

import numpy as np
import pandas as pd


def _npz(**arrays) -> bytes:
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


def _parquet(frame: pd.DataFrame) -> bytes:
    buf = io.BytesIO()
    frame.to_parquet(buf)
    return buf.getvalue()


def _zip(name: str, content: bytes) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr(name, content)
    return buf.getvalue()


def corpus() -> dict[str, bytes]:
    rng = np.random.default_rng(2026)
    good = b"score,label\n0.9,1\n0.7,0\n0.4,1\n0.2,0\n"
    files = {
        # encodings
        "utf8_bom.csv": "\ufeffscore,label\n0.9,1\n0.2,0\n".encode(),
        "utf16_le.csv": "score,label\n0.9,1\n0.2,0\n".encode("utf-16"),
        "utf16_be.csv": b"\xfe\xff" + "score,label\n0.9,1\n0.2,0\n".encode("utf-16-be"),
        "latin1_header.csv": "scoré,label\n0.9,1\n0.2,0\n".encode("latin-1"),
        "broken_utf16.csv": b"\xff\xfe\x00",
        "crlf.csv": good.replace(b"\n", b"\r\n"),
        "cr_only.csv": good.replace(b"\n", b"\r"),
        # blank lines and headers
        "blank_first_line.csv": b"\n" + good,
        "blank_first_crlf.csv": b"\r\n\r\n" + good.replace(b"\n", b"\r\n"),
        "blank_lines_inside.csv": b"score,label\n0.9,1\n\n\n0.2,0\n",
        "headerless.csv": b"0.9,1\n0.5,0\n0.3,1\n0.1,0\n",
        "header_only.csv": b"score,label\n",
        "empty.csv": b"",
        "whitespace_only.csv": b"   \n\t\n",
        "single_column.csv": b"score\n0.1\n0.2\n",
        "single_value.csv": b"1\n",
        # delimiters and decimals
        "semicolon.csv": b"score;label\n0.9;1\n0.2;0\n",
        "semicolon_decimal_comma.csv": b"score;label\n0,9;1\n0,2;0\n",
        "tab.tsv": b"score\tlabel\n0.9\t1\n0.2\t0\n",
        "pipe.csv": b"score|label\n0.9|1\n0.2|0\n",
        "comma_decimal_in_comma_csv.csv": b"score,label\n0,45,1\n0,5,0\n1,2,1\n",
        "ragged_short.csv": b"score,label\n0.9,1\n0.5\n0.2,0\n",
        "ragged_long.csv": b"score,label\n0.9,1\n0.5,0,7\n0.2,0\n",
        "quoted_delimiters.csv": b'name,score,label\n"a, b",0.9,1\n"c",0.2,0\n',
        "unterminated_quote.csv": b'score,label\n"0.9,1\n0.2,0\n',
        # column names
        "duplicate_names.csv": b"score,label,score\n0.9,1,0.1\n",
        "case_duplicates.csv": b"score,Label,label\n0.9,1,1\n0.2,0,0\n",
        "space_duplicates.csv": b"score, label,label \n0.9,1,1\n",
        "empty_header_cell.csv": b"score,,label\n0.9,3,1\n0.2,4,0\n",
        "formula_header.csv": b"=cmd|' /C calc'!A0,label\n0.9,1\n0.2,0\n",
        # values
        "unknown_labels.csv": b"score,label\n0.9,maybe\n0.2,0\n",
        "all_unrated.csv": b"score,label\n0.9,\n0.2,\n",
        "all_positive.csv": b"score,label\n0.9,1\n0.2,1\n",
        "text_scores.csv": b"score,label\n0.9,1\nhigh,0\n0.1,1\n",
        "inf_scores.csv": b"score,label\ninf,1\n0.2,0\n",
        "nan_scores_rated.csv": b"score,label\n,1\n0.2,0\n",
        "negative_weights.csv": b"score,label,weight\n0.9,1,-1\n0.2,0,1\n",
        "zero_weights.csv": b"score,label,weight\n0.9,1,0\n0.2,0,0\n",
        "huge_numbers.csv": b"score,label\n1e308,1\n-1e308,0\n1e-308,1\n",
        "bool_scores.csv": b"score,label\nTrue,1\nFalse,0\n",
        "formula_cells.csv": b'score,label,note\n0.9,1,=HYPERLINK("http://x")\n0.2,0,@SUM(A1)\n',
        "markdown_names.csv": b"[x](http://evil),label\n0.9,1\n0.2,0\n",
        "html_names.csv": b"<script>alert(1)</script>,label\n0.9,1\n0.2,0\n",
        "ids_only.csv": b"id,label\n1,1\n2,0\n",
        # binary and other formats
        "random_binary.csv": bytes(rng.integers(0, 256, 4000, dtype=np.uint8)),
        "newline_then_binary.csv": b"\n" + bytes(rng.integers(0, 256, 4000, dtype=np.uint8)),
        "nul_bytes.csv": b"score,label\n0.9\x00,1\n",
        "zip_as_csv.csv": _zip("data.csv", good),
        "xlsx_as_csv.csv": _zip("xl/workbook.xml", b"<workbook/>"),
        "xls_as_csv.csv": b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 500,
        "pdf_as_csv.csv": b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n",
        "fake_parquet.parquet": b"PAR1" + b"\x00" * 100 + b"PAR1",
        "fake_gzip.csv.gz": b"\x1f\x8b\x08\x00garbage",
        "truncated_gzip.csv.gz": gzip.compress(good)[:15],
        "gzip_bomb.csv.gz": gzip.compress(b"0" * (600 * 1024 * 1024), compresslevel=9),
        "gzip_of_binary.csv.gz": gzip.compress(bytes(rng.integers(0, 256, 2000, dtype=np.uint8))),
        # sizes and shapes
        "wide_10000_columns.csv": (
            ",".join(f"s{j}" for j in range(10_000)) + ",label\n" + ",".join("0.5" for _ in range(10_000)) + ",1\n"
        ).encode(),
        "sixty_score_columns.csv": (
            ",".join(f"s{j}" for j in range(60))
            + ",label\n"
            + "\n".join(",".join(f"{v:.3f}" for v in rng.random(60)) + f",{i % 2}" for i in range(20))
            + "\n"
        ).encode(),
        "one_row.csv": b"score,label\n0.9,1\n",
        "parquet_list_column.parquet": _parquet(
            pd.DataFrame({"score": [0.1, 0.9], "label": [0, 1], "tags": [[1], [2, 3]]})
        ),
        "parquet_zero_rows.parquet": _parquet(
            pd.DataFrame({"score": pd.Series([], dtype=float), "label": pd.Series([], dtype=float)})
        ),
        "parquet_good.parquet": _parquet(pd.DataFrame({"score": [0.9, 0.2, 0.5], "label": [1, 0, 1]})),
        # aggregated counts
        "counts_two_points.csv": b"t1,t2,tp,fp\n0.1,0.1,5,9\n0.5,0.5,2,3\n",
        "counts_collinear.csv": b"t1,t2,tp,fp\n0.1,0.1,5,9\n0.3,0.3,3,4\n0.5,0.5,2,3\n",
        "counts_header_only.csv": b"t1,t2,tp,fp\n",
        "counts_numbers_column.csv": b"1\n2\n3\n",
        "counts_1d.csv": b"t1,tp,fp\n0.1,10,50\n0.5,6,20\n0.9,1,2\n",
        "counts_negative.csv": b"t1,t2,tp,fp\n0,0,-3,1\n0,1,1,1\n1,0,1,1\n1,1,0,0\n",
        "counts_irregular_6d.csv": (
            "t1,t2,t3,t4,t5,t6,tp,fp\n"
            + "\n".join(",".join(f"{x:.3f}" for x in rng.random(6)) + f",{i},{2 * i}" for i in range(40))
            + "\n"
        ).encode(),
        "counts_irregular_4d.csv": (
            "t1,t2,t3,t4,tp,fp\n"
            + "\n".join(",".join(f"{x:.3f}" for x in rng.random(4)) + f",{i},{2 * i}" for i in range(40))
            + "\n"
        ).encode(),
        # score matrices
        "npz_no_F.npz": _npz(G=np.zeros((20, 3))),
        "npz_bias_two.npz": _npz(F=rng.normal(size=(20, 3)), bias=np.array([1.0, 2.0])),
        "npz_labels_short.npz": _npz(F=rng.normal(size=(20, 3)), labels=np.zeros(5)),
        "npz_string_labels.npz": _npz(F=rng.normal(size=(20, 3)), labels=np.array(["a"] * 20)),
        "npz_labels_2_5.npz": _npz(F=rng.normal(size=(20, 3)), labels=np.array([2, 5] * 10)),
        "npz_nan_labels.npz": _npz(F=rng.normal(size=(20, 3)), labels=np.full(20, np.nan)),
        "npz_2d_labels.npz": _npz(F=rng.normal(size=(20, 3)), labels=np.zeros((20, 2))),
        "npz_all_test.npz": _npz(F=rng.normal(size=(20, 3)), split=np.array(["test"] * 20)),
        "npz_1d_F.npz": _npz(F=np.zeros(20)),
        "npz_object_F.npz": b"PK\x03\x04" + b"\x00" * 60,
        # probability batches
        "batches_out_of_range.csv": b"probability,batch\n-2.5,a\n1.5,a\n0.3,b\n",
        "batches_missing_batch.csv": b"probability,batch\n0.2,a\n0.3,\n",
        "batches_text_probability.csv": b"probability,batch\n0.2,a\nhigh,a\n",
    }
    return files
