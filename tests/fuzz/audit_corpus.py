"""Hostile inputs for the audit surfaces (issue 33): populations, reviewed plans, design records, rated data, flags.

Built in a temporary folder from a small population whose every label is known (so accepted cases are checked
against the truth) and the shipped satimage audit. Each case is a command line of ``opstudio audit plan`` or
``opstudio audit estimate`` with what must happen: **refused** (exit 2, one line on stderr naming the column,
row or flag and the fix, nothing on stdout, no traceback) or **accepted** (exit 0 and a check of the output
against an oracle). Categories: arguments (budget, strata, line, seed, level, follow-ups, thresholds),
population files (columns, scores, ids, encodings, compression, sizes, reads outside ``OPSTUDIO_DATA_ROOTS``),
reviewed plans edited (sizes, bounds, weights, inclusion probabilities, strata, rows, ids, labels), design
records (missing, another plan's, malformed, tampered), rated data of other documents, and headlines.
"""

from __future__ import annotations

import gzip
import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd

from engine.audit import PopulationColumns, plan
from engine.audit._population import memory_population
from engine.audit.designs import design_json, design_record

#: the population's review line, budget and strata (small: every case runs in a second)
LINE, BUDGET, STRATA = 0.7, 80, 4
#: a folder outside the allowed one; no message may show what it holds
OUTSIDE = "private-area"
#: the budget that reviews every document below the line of :func:`population` (every id is written)
EVERY_BELOW = "794"


@dataclass(frozen=True)
class Case:
    """One command line and what it must do.

    Attributes
    ----------
    name : str
    argv : list of str
        The arguments after ``opstudio``.
    refused : str or None
        A regular expression the one-line error must match (None: the command must succeed).
    check : callable or None
        For an accepted case: ``check(stdout, folder, argv)`` raises AssertionError when the output is wrong.
    roots : bool
        Run with ``OPSTUDIO_DATA_ROOTS`` set to the folder ``lake``.
    """

    name: str
    argv: list[str]
    refused: str | None = None
    check: Callable | None = None
    roots: bool = False


def population(n: int = 800, seed: int = 3) -> pd.DataFrame:
    """Documents with a score and a known label (a positive is more likely the higher its score)."""
    rng = np.random.default_rng(seed)
    score = np.round(rng.beta(0.6, 3.0, n), 6)
    truth = (rng.random(n) < score**2).astype(int)
    return pd.DataFrame({"doc_id": [f"D{i:05d}" for i in range(n)], "fraud_score": score, "truth": truth})


def _plan_files(folder: Path, frame: pd.DataFrame, name: str = "plan") -> tuple[pd.DataFrame, dict]:
    """The studio's own plan of ``frame`` (written as plan.csv / plan.json) reviewed with the known labels."""
    planned = plan(
        memory_population(frame, PopulationColumns("doc_id", "fraud_score"), name="'population.csv'"),
        below=LINE,
        budget=BUDGET,
        strata=STRATA,
        seed=1,
    )
    cells = planned.table()
    (folder / f"{name}_unreviewed.csv").write_bytes(planned.csv())  # what opstudio audit plan writes
    truth = frame.set_index("doc_id")["truth"]
    reviewed = cells.assign(label=truth.loc[planned.rows["id"]].map({1: "yes", 0: "no"}).to_numpy())
    reviewed.to_csv(folder / f"{name}.csv", index=False)
    design = design_record(planned)
    (folder / f"{name}.json").write_bytes(design_json(design))
    return reviewed, design


def _edited(folder: Path, reviewed: pd.DataFrame, design: dict, name: str, edit) -> str:
    frame = edit(reviewed.copy())
    path = folder / f"{name}.csv"
    frame.to_csv(path, index=False)
    (folder / f"{name}.json").write_bytes(design_json(design))
    return str(path)


def _bomb(path: Path, inflated: int = 600 * 2**20) -> None:
    """A gzip file of a few hundred KB inflating to ``inflated`` bytes of CSV (many identical members)."""
    chunk = b"D1,0.5\n" * (2**20 // 7)
    member = gzip.compress(chunk, compresslevel=9, mtime=0)
    path.write_bytes(gzip.compress(b"doc_id,fraud_score\n", mtime=0) + member * (inflated // len(chunk) + 1))


def _stratum_edit(column: str, factor=None, value=None):
    def edit(f: pd.DataFrame) -> pd.DataFrame:
        top = f["stratum"] == f["stratum"].max()
        f[column] = f[column].astype(float)
        f.loc[top, column] = f.loc[top, column] * factor if factor is not None else value
        if column == "stratum_documents" and value is not None:
            f.loc[top, "inclusion_probability"] = f.loc[top, "stratum_sample"] / value
            f.loc[top, "weight"] = value / f.loc[top, "stratum_sample"]
        elif column == "stratum_documents":
            docs = f.loc[top, "stratum_documents"]
            f.loc[top, "inclusion_probability"] = f.loc[top, "stratum_sample"] / docs
            f.loc[top, "weight"] = docs / f.loc[top, "stratum_sample"]
        return f

    return edit


def _lowered_to_sample(f: pd.DataFrame) -> pd.DataFrame:
    f["stratum_documents"] = f["stratum_sample"]
    f["inclusion_probability"] = 1.0
    f["weight"] = 1.0
    return f


def _oracle_covers(truth_below: int, truth_recall: float):
    def check(out: str, folder: Path, argv: list[str]) -> None:
        result = json.loads(out)
        positives = result["below"]["positives"]
        assert positives["lower"] <= truth_below <= positives["upper"], (positives, truth_below)
        assert result["recall"]["lower"] <= truth_recall <= result["recall"]["upper"]

    return check


def _says(*texts: str, absent: tuple[str, ...] = ()):
    def check(out: str, folder: Path, argv: list[str]) -> None:
        for text in texts:
            assert text in out, (text, out)
        for text in absent:
            assert text not in out, (text, out)

    return check


def _same_plan(reference: str = "plan_unreviewed.csv"):
    """The plan file written is the engine's plan of the clean population (the same documents, byte for byte)."""

    def check(out: str, folder: Path, argv: list[str]) -> None:
        written = folder / argv[argv.index("--out") + 1]
        assert written.read_bytes() == (folder / reference).read_bytes(), written
        assert json.loads(written.with_suffix(".json").read_text())["rows_sha256"]

    return check


def _plan_args(path: str, *extra: str, out: str = "out.csv") -> list[str]:
    return ["audit", "plan", path, "--id", "doc_id", "--score", "fraud_score", "--below", str(LINE),
            "--budget", str(BUDGET), "--strata", str(STRATA), "--seed", "1", "--out", out, *extra]  # fmt: skip


def _estimate(audit: str, *extra: str, rated: str = "rated.csv") -> list[str]:
    return ["audit", "estimate", "--rated", rated, "--audit", audit, *extra]


def _populations(folder: Path, frame: pd.DataFrame) -> None:
    """Population files: the clean one and its hostile variants (bad ids on documents below the line)."""
    a, b, c, d = np.flatnonzero(frame["fraud_score"].to_numpy() < LINE)[:4]
    frame.to_csv(folder / "population.csv", index=False)
    text = (folder / "population.csv").read_text()
    (folder / "bom_crlf.csv").write_bytes(("\ufeff" + text).replace("\n", "\r\n").encode())
    (folder / "semicolon.csv").write_text(text.replace(",", ";"))
    (folder / "population.csv.gz").write_bytes(gzip.compress(text.encode(), mtime=0))
    (folder / "truncated.csv.gz").write_bytes(gzip.compress(text.encode(), mtime=0)[:300])
    (folder / "fake.csv.gz").write_bytes(b"\x1f\x8b\x08\x00not really gzip")
    (folder / "empty.csv").write_bytes(b"")
    (folder / "header_only.csv").write_text("doc_id,fraud_score\n")
    (folder / "all_above.csv").write_text("doc_id,fraud_score\nA,0.8\nB,0.9\n")
    (folder / "one_below.csv").write_text("doc_id,fraud_score\nA,0.8\nB,0.1\n")
    for name, column, values in (
        ("nan_scores.csv", "fraud_score", lambda f: f["fraud_score"].astype(object).where(f.index % 97 != 5, "")),
        ("inf_scores.csv", "fraud_score", lambda f: f["fraud_score"].astype(object).where(f.index != 7, "inf")),
        ("text_scores.csv", "fraud_score", lambda f: f["fraud_score"].astype(object).where(f.index != 9, "high")),
        ("comma_decimals.csv", "fraud_score", lambda f: f["fraud_score"].map(lambda v: str(v).replace(".", ","))),
        ("duplicate_ids.csv", "doc_id", lambda f: f["doc_id"].where(f.index != b, f["doc_id"].iloc[a])),
        ("empty_ids.csv", "doc_id", lambda f: f["doc_id"].where(f.index != c, "")),
    ):
        frame.assign(**{column: values(frame)}).to_csv(folder / name, index=False, sep=";" if "comma" in name else ",")
    frame.assign(fraud_score=frame["fraud_score"] > 0.5).to_parquet(folder / "boolean_scores.parquet")
    frame.assign(doc_id=frame["doc_id"].where(frame.index != d, "D\r13")).to_parquet(folder / "cr_ids.parquet")
    frame.assign(doc_id=np.arange(len(frame)) + 0.5).to_parquet(folder / "decimal_ids.parquet")
    frame.assign(prior=np.where(frame.index == 3, 1.5, 0.1)).to_csv(folder / "bad_prior.csv", index=False)
    padded = frame.assign(doc_id=[f"{i:05d}" for i in range(len(frame))])
    padded.to_csv(folder / "padded.csv", index=False)
    (folder / "population.xlsx").write_bytes(b"PK\x03\x04 not a table")
    (folder / "a_folder").mkdir()
    _bomb(folder / "bomb.csv.gz")


def _outside(root: Path, frame: pd.DataFrame) -> None:
    """The folder ``lake`` (allowed) with links out, and the folder outside it."""
    lake, outside = root / "lake", root / OUTSIDE
    lake.mkdir()
    outside.mkdir()
    frame.to_csv(lake / "inside.csv", index=False)
    frame.to_csv(outside / "secret.csv", index=False)
    frame.to_parquet(outside / "secret.parquet")
    os.symlink(outside / "secret.csv", lake / "link.csv")
    os.symlink(outside / "secret.parquet", lake / "link.parquet")
    os.symlink(outside, lake / "folder_link")


def _reviewed_variants(folder: Path, reviewed: pd.DataFrame, design: dict) -> dict[str, str]:
    top = int(reviewed["stratum"].max())
    edits = {
        "docs_x10": _stratum_edit("stratum_documents", factor=10),
        "docs_1e12": _stratum_edit("stratum_documents", value=1e12),
        "docs_9e18": lambda f: f.assign(stratum_documents=9e18),
        "lowered_to_sample": _lowered_to_sample,
        "lowered_inconsistent": lambda f: f.assign(stratum_documents=f["stratum_sample"]),
        "stratum_deleted": lambda f: f[f["stratum"] != 2],
        "top_stratum_deleted": lambda f: f[f["stratum"] != top],
        "rows_deleted": lambda f: f.drop(index=f.index[f["stratum"] == 1][:3]),
        "line_edited": lambda f: f.assign(stratum_upper=f["stratum_upper"].where(f["stratum"] != top, 0.75)),
        "weights_edited": lambda f: f.assign(weight=f["weight"] * 1.5),
        "inclusion_edited": lambda f: f.assign(inclusion_probability=f["inclusion_probability"] / 2),
        "renumbered": lambda f: f.assign(stratum=f["stratum"] * 10),
        "reversed": lambda f: f.assign(stratum=top + 1 - f["stratum"]),
        "id_edited": lambda f: f.assign(id=f["id"].where(f.index != 4, "D99999")),
        "row_duplicated": lambda f: pd.concat([f, f.iloc[[0]]], ignore_index=True),
        "extra_row": lambda f: pd.concat([f, f.iloc[[0]].assign(id="NEW")], ignore_index=True),
        "score_edited": lambda f: f.assign(score=f["score"].where(f.index != 2, f["score"].iloc[2] * 0.999)),
        "maybe_label": lambda f: f.assign(label=f["label"].where(f.index != 6, "maybe")),
        "odd_spellings": lambda f: f.assign(
            label=f["label"].map({"yes": " TP ", "no": "False"}).where(f.index % 2 == 0, f["label"].str.upper())
        ),
        "no_positive": lambda f: f.assign(label="no"),
        "unreviewed_stratum": lambda f: f.assign(label=f["label"].where(f["stratum"] != 1, "")),
        "some_unreviewed": lambda f: f.assign(label=f["label"].where(f.index % 5 != 0, "")),
    }
    paths = {name: _edited(folder, reviewed, design, name, edit) for name, edit in edits.items()}
    raw = (folder / "plan.csv").read_bytes()
    (folder / "bom_crlf_plan.csv").write_bytes(b"\xef\xbb\xbf" + raw.replace(b"\n", b"\r\n"))
    (folder / "semicolon_plan.csv").write_bytes(raw.replace(b",", b";"))
    (folder / "plan_gz.csv.gz").write_bytes(gzip.compress(raw, mtime=0))
    (folder / "truncated_plan.csv.gz").write_bytes(gzip.compress(raw, mtime=0)[:200])
    for name in ("bom_crlf_plan", "semicolon_plan", "plan_gz", "truncated_plan"):
        (folder / f"{name}.json").write_bytes(design_json(design))
    (folder / "no_design.csv").write_bytes(raw)
    return paths


def _designs(folder: Path, design: dict) -> None:
    """Design records that are not JSON, not a design, another plan's, or tampered."""
    text = design_json(design).decode()
    (folder / "not_json.json").write_text(text[: len(text) // 2])
    (folder / "nan.json").write_text(text.replace('"level": 0.95', '"level": NaN'))
    (folder / "deep.json").write_text("[" * 200 + "]" * 200)
    (folder / "quotes.json").write_text('"' + '\\"' * 70_000)
    (folder / "other_format.json").write_text(json.dumps({**design, "format": "something else"}))
    tampered = json.loads(text)
    first, second = tampered["above"]["scores"][:2]
    tampered["above"]["scores"][1] = (first + second) / 2  # still ascending, another score
    (folder / "tampered_scores.json").write_text(json.dumps(tampered))
    seeded = json.loads(text)
    seeded["strata"][0]["documents"] += 1
    seeded["population"]["documents"] += 1
    (folder / "other_sizes.json").write_text(json.dumps(seeded))
    (folder / "rows_key.json").write_text(json.dumps({**json.loads(text), "rows_sha256": "0" * 64}))


def _rated(folder: Path, frame: pd.DataFrame) -> None:
    above = frame[frame["fraud_score"] >= LINE]
    rated = above.rename(columns={"truth": "label"})[["doc_id", "fraud_score", "label"]]
    rated.to_csv(folder / "rated.csv", index=False)
    rated.iloc[1:].to_csv(folder / "rated_missing.csv", index=False)
    extra = pd.DataFrame({"doc_id": ["X1"], "fraud_score": [0.99], "label": [1]})
    pd.concat([rated, extra]).to_csv(folder / "rated_extra.csv", index=False)
    rated.assign(label=rated["label"].astype(object).where(rated.index != rated.index[0], "")).to_csv(
        folder / "rated_unrated.csv", index=False
    )
    shifted = rated.assign(fraud_score=np.round(rated["fraud_score"] * 0.98 + 0.02, 6))
    shifted.to_csv(folder / "rated_other.csv", index=False)


def build(root: Path) -> tuple[Path, list[Case]]:
    """Make the corpus under ``root``; returns the folder the commands run in and the cases."""
    folder = root / "work"
    folder.mkdir()
    frame = population()
    assert str(int((frame["fraud_score"] < LINE).sum())) == EVERY_BELOW
    _populations(folder, frame)
    _outside(root, frame.drop(columns="truth"))
    reviewed, design = _plan_files(folder, frame)
    padded = frame.assign(doc_id=[f"{i:05d}" for i in range(len(frame))])
    padded_reviewed, padded_design = _plan_files(folder, padded, name="padded_plan")
    variants = _reviewed_variants(folder, reviewed, design)
    _edited(folder, padded_reviewed, padded_design, "zeros_dropped", lambda f: f.assign(id=f["id"].str.lstrip("'0")))
    _designs(folder, design)
    _rated(folder, frame)
    below = frame["fraud_score"] < LINE
    truth_below, tp = int(frame.loc[below, "truth"].sum()), int(frame.loc[~below, "truth"].sum())
    covers = _oracle_covers(truth_below, tp / (tp + truth_below))
    lake = root / "lake"
    cases = _plan_cases(folder, lake) + _estimate_cases(variants, covers) + _design_cases()
    # every plan writes its own file: the cases run side by side
    return folder, [
        replace(c, argv=[f"out_{i}{a[3:]}" if a.startswith("out.") else a for a in c.argv]) for i, c in enumerate(cases)
    ]


def _plan_cases(folder: Path, lake: Path) -> list[Case]:
    refused = [
        (
            "budget negative",
            _plan_args("population.csv", "--budget", "-5"),
            r"--budget must be a whole number of at least 1",
        ),
        (
            "budget zero",
            _plan_args("population.csv", "--budget", "0"),
            r"--budget must be a whole number of at least 1",
        ),
        (
            "budget above the documents below",
            _plan_args("population.csv", "--budget", "100000"),
            r"--budget must be a whole number from .* \(every document below the line\)",
        ),
        (
            "no strata",
            _plan_args("population.csv", "--strata", "0"),
            r"--strata must be a whole number from 1 to 40, got 0",
        ),
        (
            "45 strata",
            _plan_args("population.csv", "--strata", "45"),
            r"--strata must be a whole number from 1 to 40, got 45",
        ),
        ("line nan", _plan_args("population.csv", "--below", "nan"), r"--below must be a finite number"),
        ("line infinite", _plan_args("population.csv", "--below", "inf"), r"--below must be a finite number"),
        (
            "line under every score",
            _plan_args("population.csv", "--below", "-1"),
            r"No document of the population scores below -1",
        ),
        ("seed negative", _plan_args("population.csv", "--seed", "-1"), r"--seed must be a whole number from 0"),
        ("seed too large", _plan_args("population.csv", "--seed", str(2**32)), r"--seed must be a whole number"),
        (
            "level above one",
            _plan_args("population.csv", "--level", "1.5"),
            r"level must be in \(0, 1\) \(e.g. 0.95\), got 1.5",
        ),
        (
            "half-width negative",
            [
                "audit",
                "plan",
                "population.csv",
                "--id",
                "doc_id",
                "--score",
                "fraud_score",
                "--below",
                "0.7",
                "--half-width",
                "-3",
                "--prior",
                "fraud_score",
                "--out",
                "out.csv",
            ],
            r"--half-width must be a positive",
        ),
        (
            "--id names a missing column",
            _plan_args("population.csv", "--id", "id"),
            r"Id column 'id' \(--id\) is not in 'population.csv'; its columns are doc_id, fraud_score, truth",
        ),
        (
            "--score names a missing column",
            _plan_args("population.csv", "--score", "risk"),
            r"Score column 'risk' \(--score\) is not in .*doc_id, fraud_score, truth",
        ),
        (
            "--prior names a missing column",
            _plan_args("population.csv", "--prior", "p"),
            r"Prior column 'p' \(--prior\) is not in",
        ),
        (
            "prior outside [0, 1]",
            _plan_args("bad_prior.csv", "--prior", "prior"),
            r"Prior column 'prior' .*1 rows have a prior .*outside \[0, 1\]",
        ),
        ("missing scores", _plan_args("nan_scores.csv"), r"Score column 'fraud_score' .*rows have no score"),
        ("infinite score", _plan_args("inf_scores.csv"), r"Score column 'fraud_score' .*1 rows have infinite scores"),
        (
            "text score",
            _plan_args("text_scores.csv"),
            r"Score column 'fraud_score' .*1 rows hold non-numeric values.*dot as decimal separator",
        ),
        (
            "decimal commas",
            _plan_args("comma_decimals.csv"),
            r"Score column 'fraud_score' .*non-numeric values.*dot as decimal separator",
        ),
        ("boolean scores", _plan_args("boolean_scores.parquet"), r"Score column 'fraud_score' .*true/false values"),
        ("decimal ids", _plan_args("decimal_ids.parquet"), r"Id column 'doc_id' holds decimal values"),
        (
            "duplicate ids",
            _plan_args("duplicate_ids.csv", "--budget", EVERY_BELOW, "--strata", "1"),
            r"Id 'D\d{5}' belongs to more than one document",
        ),
        (
            "an empty id",
            _plan_args("empty_ids.csv", "--budget", EVERY_BELOW, "--strata", "1"),
            r"Id column 'doc_id' .*1 rows have no id",
        ),
        (
            "an id with a carriage return",
            _plan_args("cr_ids.parquet", "--budget", EVERY_BELOW, "--strata", "1"),
            r"the id 'D\\r13' holds the control character U\+000D",
        ),
        (
            "every document above the line",
            _plan_args("all_above.csv"),
            r"No document of the population scores below 0.7",
        ),
        ("an empty file", _plan_args("empty.csv"), r"'empty.csv' is empty|Could not read 'empty.csv'"),
        ("a truncated gzip", _plan_args("truncated.csv.gz"), r"cannot be decompressed"),
        ("not gzip", _plan_args("fake.csv.gz"), r"cannot be decompressed"),
        (
            "a 600 MB gzip bomb",
            _plan_args("bomb.csv.gz", "--backend", "memory"),
            r"more than 512 MB of rows \(inflated\).*--backend duckdb",
        ),
        ("a spreadsheet", _plan_args("population.xlsx"), r"the memory backend reads .parquet and .csv"),
        ("a folder", _plan_args("a_folder"), r"'a_folder' is a folder"),
        (
            "an --out that is its own design",
            _plan_args("population.csv", out="out.json"),
            r"--out 'out_\d+.json' is a .json name: write the plan to a .csv file",
        ),
    ]
    cases = [Case(name, argv, refused=pattern) for name, argv, pattern in refused]
    outside = folder.parent / OUTSIDE
    for backend in ("memory", "duckdb"):
        for what, path in (
            ("outside, existing", outside / "secret.csv"),
            ("outside, missing", outside / "nothing.csv"),
            ("a link out", lake / "link.csv"),
            ("a parquet link out", lake / "link.parquet"),
            ("through a folder link", lake / "folder_link" / "secret.csv"),
            ("dot-dot", lake / ".." / OUTSIDE / "secret.csv"),
            ("a glob over a link", lake / "*.csv"),
            ("a glob outside", outside / "*.csv"),
        ):
            cases.append(
                Case(
                    f"{what} ({backend})",
                    _plan_args(str(path), "--backend", backend),
                    refused=r"is outside the folders this dashboard may read .*Choose files inside them",
                    roots=True,
                )
            )
    accepted = [
        ("the clean population", _plan_args("population.csv"), _same_plan()),
        ("gzip", _plan_args("population.csv.gz"), _same_plan()),
        ("BOM and CRLF", _plan_args("bom_crlf.csv"), _same_plan()),
        ("semicolons", _plan_args("semicolon.csv"), _same_plan()),
        ("the clean population on DuckDB", _plan_args("population.csv", "--backend", "duckdb"), _same_plan()),
        (
            "one document below the line",
            _plan_args("one_below.csv", "--budget", "1", "--strata", "1"),
            _says("Review 1 of the 1 documents below"),
        ),
        ("zero-padded ids", _plan_args("padded.csv"), _same_plan("padded_plan_unreviewed.csv")),
        (
            "zero-padded ids on DuckDB",
            _plan_args("padded.csv", "--backend", "duckdb"),
            _same_plan("padded_plan_unreviewed.csv"),
        ),
        ("inside the allowed folder", _plan_args(str(lake / "inside.csv")), _same_plan()),
    ]
    cases += [Case(name, argv, check=check, roots=name.startswith("inside")) for name, argv, check in accepted]
    return cases


def _estimate_cases(variants: dict[str, str], covers) -> list[Case]:
    refused = {
        "docs_x10": r"Column 'stratum_documents' of 'docs_x10.csv' at row \d+ \(stratum 4\): .* where the plan's design record says",
        "docs_1e12": r"Column 'stratum_documents' of 'docs_1e12.csv' at row \d+ \(stratum 4\): 1,000,000,000,000 where",
        "docs_9e18": r"Column 'stratum_documents' of 'docs_9e18.csv': values at rows .* are not whole numbers from 1 to 2\*\*53",
        "lowered_to_sample": r"Column 'stratum_documents' of 'lowered_to_sample.csv' at row \d+ \(stratum \d\)",
        "lowered_inconsistent": r"Column 'inclusion_probability' of 'lowered_inconsistent.csv' at rows",
        "stratum_deleted": r"Column 'stratum' of 'stratum_deleted.csv': stratum 2 has no row",
        "top_stratum_deleted": r"'top_stratum_deleted.csv' has 3 strata where the plan's design record has 4",
        "rows_deleted": r"'rows_deleted.csv': stratum 1 lists \d+ of its \d+ planned documents: rows were deleted",
        "line_edited": r"Column 'stratum_upper' of 'line_edited.csv' at row \d+ \(stratum 4\): 0.75 where .* says 0.7 \(the review line\)",
        "weights_edited": r"Column 'weight' of 'weights_edited.csv' at rows .* is not stratum_documents / stratum_sample",
        "inclusion_edited": r"Column 'inclusion_probability' of 'inclusion_edited.csv' at rows .* is not stratum_sample / stratum_documents",
        "renumbered": r"Column 'stratum' of 'renumbered.csv': its strata are numbered 10, 20, 30, 40",
        "reversed": r"Column 'stratum' of 'reversed.csv': stratum 4 holds the lowest scores",
        "id_edited": r"The ids or scores of 'id_edited.csv' are not the rows its design record was planned with",
        "score_edited": r"The ids or scores of 'score_edited.csv' are not the rows",
        "row_duplicated": r"Column 'id' of 'row_duplicated.csv': ids repeated at row \d+",
        "extra_row": r"'extra_row.csv': stratum \d lists \d+ documents but its plan drew \d+",
        "maybe_label": r"Column 'label': unknown label values 'maybe' at row 7",
        "unreviewed_stratum": r"Column 'label' of 'unreviewed_stratum.csv': stratum 1 has no reviewed document",
    }
    cases = [
        Case(f"reviewed plan: {name}", _estimate(variants[name]), refused=pattern) for name, pattern in refused.items()
    ]
    cases += [
        Case(
            "zero padding dropped by a spreadsheet",
            _estimate("zeros_dropped.csv"),
            refused=r"The ids or scores of 'zeros_dropped.csv' are not the rows .*leading zeros dropped",
        ),
        Case(
            "rated data of the synthetic sample",
            _estimate("satimage_audit", rated="synthetic"),
            refused=r"Rated data 'synthetic_rare_events.csv.gz' \('score_image'\) is not the audit's population at or above its review line 0.9: at rows \d+",
        ),
        Case(
            "an own rated.csv with the shipped audit",
            _estimate("satimage_audit"),
            refused=r"Rated data 'rated.csv' \('fraud_score'\) has 0 rated rows at or above the audit's review line 0.9, the population 'satimage_population.csv.gz' has 56 documents there",
        ),
        Case(
            "rated data of other scores",
            _estimate("plan.csv", rated="rated_other.csv"),
            refused=r"Rated data 'rated_other.csv' .* is not the audit's population at or above its review line 0.7: at rows 1",
        ),
        Case(
            "rated data missing a document",
            _estimate("plan.csv", rated="rated_missing.csv"),
            refused=r"has \d+ rated rows at or above the audit's review line 0.7, the population 'population.csv' has \d+ documents there",
        ),
        Case(
            "rated data with an extra document",
            _estimate("plan.csv", rated="rated_extra.csv"),
            refused=r"'rated_extra.csv' .* at row \d+ .* scores 0.99",
        ),
        Case(
            "no design record",
            _estimate("no_design.csv"),
            refused=r"No design record beside the reviewed plan \(looked for 'no_design.json'\).*--design FILE",
        ),
        Case(
            "--more negative", _estimate("plan.csv", "--more", "-1"), refused=r"--more must be a whole number from 0 to"
        ),
        Case(
            "--more too many",
            _estimate("plan.csv", "--more", "1000000"),
            refused=r"--more must be a whole number from 0 to",
        ),
        Case(
            "--want-half-width negative",
            _estimate("plan.csv", "--want-half-width", "-2"),
            refused=r"--want-half-width must be a positive",
        ),
        Case(
            "--threshold nan",
            _estimate("plan.csv", "--threshold", "nan"),
            refused=r"--threshold must be a finite number",
        ),
        Case("--level zero", _estimate("plan.csv", "--level", "0"), refused=r"level must be in \(0, 1\)"),
        Case("a truncated gzip plan", _estimate("truncated_plan.csv.gz"), refused=r"cannot be decompressed"),
        Case(
            "--method exact on a 9e18 stratum",
            _estimate(variants["docs_9e18"], "--method", "exact"),
            refused=r"not whole numbers from 1 to 2\*\*53",
        ),
    ]
    accepted = [
        (
            "the shipped sample pair",
            _estimate("satimage_audit", rated="satimage_rated"),
            _says(
                "An audit of 300 of the 5,747 unflagged documents found 1 positive: between 1 and 87 positives (95 %) are missed below the line"
            ),
        ),
        (
            "the shipped pair, covering the truth (15 of 71 below)",
            _estimate("satimage_audit", "--json", rated="satimage_rated"),
            _oracle_covers(15, 56 / 71),
        ),
        ("the studio's own plan", _estimate("plan.csv", "--json"), covers),
        ("a gzip plan", _estimate("plan_gz.csv.gz", "--json"), covers),
        ("a plan saved with BOM and CRLF", _estimate("bom_crlf_plan.csv", "--json"), covers),
        ("a plan saved with semicolons", _estimate("semicolon_plan.csv", "--json"), covers),
        ("labels in odd spellings", _estimate(variants["odd_spellings"], "--json"), covers),
        ("unreviewed documents", _estimate(variants["some_unreviewed"]), _says("were not reviewed")),
        ("rated data with an unrated document", _estimate("plan.csv", rated="rated_unrated.csv"), _says("unrated")),
        (
            "a threshold above every score",
            _estimate("plan.csv", "--threshold", "5"),
            _says("precision – (nothing flagged)", absent=("nan",)),
        ),
        (
            "an audit that found no positive",
            _estimate(variants["no_positive"]),
            _says(
                "missed positives: 0 – ",
                "% – 100 %",
                absent=("Recall 100", "missed positives: 0 (", "recall at the review line: 100 %"),
            ),
        ),
        ("--design given", _estimate("no_design.csv", "--design", "plan.json"), _says("An audit of 80")),
        ("--method exact", _estimate("plan.csv", "--method", "exact", "--json"), covers),
        ("--more 0", _estimate("plan.csv", "--more", "0"), _says("The interval is already about")),
    ]
    cases += [Case(name, argv, check=check) for name, argv, check in accepted]
    return cases


def _design_cases() -> list[Case]:
    refused = {
        "not_json": r"The design record 'not_json.json' is not valid JSON",
        "nan": r"The design record 'nan.json' is not valid JSON \(NaN is not a JSON number",
        "deep": r"The design record 'deep.json' nests objects or arrays 200 deep",
        "quotes": r"The design record 'quotes.json'",
        "other_format": r"field 'format' must be 'opstudio audit design'",
        "tampered_scores": r"field 'above.scores' does not match above.scores_sha256",
        "other_sizes": r"Column 'stratum_documents' of 'plan.csv' at row \d+ \(stratum 1\)",
        "rows_key": r"The ids or scores of 'plan.csv' are not the rows its design record was planned with",
    }
    return [
        Case(f"design record: {name}", _estimate("plan.csv", "--design", f"{name}.json"), refused=pattern)
        for name, pattern in refused.items()
    ]


def one_line(text: str) -> bool:
    """Exactly one line of text (the CLI's error contract)."""
    return len(text.strip().splitlines()) == 1 and not re.search(r"Traceback|^\s+File ", text, re.M)


__all__ = ["Case", "build", "one_line", "population", "OUTSIDE", "LINE"]
