"""A hostile corpus of the newest surfaces (issue 33), generated into a folder: nothing binary is committed.

Dated files (years 1, 2262, 2300, 300 years, 25 years of days, time-zone offsets, a true/false score), a
label ``maybe`` at row 124, truncated gzip, a segment with only unrated rows, 1 MB of escaped quotes in a
model JSON, a numeric feature near 1e308, edited model files, a multiclass scikit-learn model, and a folder
of allowed data beside files outside it (one reached through a link). :data:`CLI_CASES` are command lines
run as a user runs them; each says what it must end in: exit 2 with one line naming the problem, or a
result checked against an oracle (:mod:`tests.fuzz.test_monitor_fuzz`).
"""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

#: rows of the small dated files (a few hundred, as in the issue)
ROWS = 300


@dataclass(frozen=True)
class Case:
    """One command line of the corpus.

    Attributes
    ----------
    name : str
        What it tries.
    argv : tuple of str
        The arguments after ``opstudio``; ``{d}`` is the corpus folder.
    message : str
        For a refusal: a piece of the one line it must print (exit status 2). Empty: it must succeed.
    roots : bool
        Run with ``OPSTUDIO_DATA_ROOTS`` set to the corpus's allowed folder.
    check : callable or None
        For a success: ``check(stdout, folder)`` asserts the answer against an oracle.
    """

    name: str
    argv: tuple[str, ...]
    message: str = ""
    roots: bool = False
    check: Callable[[str, Path], None] | None = field(default=None, compare=False)


def _dated(path: Path, dates, seed: int = 0, **extra) -> None:
    rng = np.random.default_rng(seed)
    n = len(dates)
    score = rng.random(n)
    label = (rng.random(n) < score).astype(int)
    pd.DataFrame({"date": dates, "score": score, "label": label, **extra}).to_csv(path, index=False)


def _model_json() -> dict:
    """A constrained model as `opstudio constrain` writes it, built here from its format (no training)."""
    return {
        "format": "opstudio-constrained-linear/1",
        "engine_version": "0.1.0",
        "feature_names": ["big", "x", "sex=Female", "sex=Male"],
        "preprocessing": {
            "numeric": [{"column": "big", "mean": 0.5, "scale": 0.3}, {"column": "x", "mean": 0.5, "scale": 0.3}],
            "categorical": [{"column": "sex", "categories": ["Female", "Male"]}],
        },
        "coefficients": [-0.2, 0.5, -0.15, 0.15],
        "intercept": 0.01,
        "decision": "score = features @ coefficients + intercept; flag if >= 0",
        "constraints": [],
        "rates": {},
        "settings": {},
    }


def write(folder: Path) -> Path:
    """Write every file of the corpus into ``folder`` (made if missing); returns it."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(2033)
    _dated(folder / "y2300.csv", np.repeat(["2300-01-05", "2300-02-10", "2300-03-01"], ROWS // 3))
    _dated(folder / "year1.csv", ["0001-01-01"] + ["2025-01-06"] * (ROWS - 1))
    _dated(folder / "days25y.csv", pd.date_range("2000-01-01", "2024-12-31", periods=ROWS).strftime("%Y-%m-%d"))
    _dated(folder / "y300.csv", [f"{1700 + i}-01-01" for i in range(ROWS)])
    _dated(folder / "cross2262.csv", [f"2262-04-{5 + i % 10:02d}" for i in range(ROWS)])
    _dated(folder / "edge2262.csv", ["2262-04-11"] * (ROWS // 2) + ["2262-04-13"] * (ROWS // 2))
    hours = rng.integers(0, 24, ROWS)
    _dated(folder / "offsets.csv", [f"2025-01-{6 + i % 14:02d}T{h:02d}:30:00+05:00" for i, h in enumerate(hours)])
    score = rng.random(ROWS)
    pd.DataFrame(
        {
            "date": [f"2025-01-{6 + i % 20:02d}" for i in range(ROWS)],
            "flag": score > 0.5,
            "score": score,
            "label": (rng.random(ROWS) < score).astype(int),
        }
    ).to_csv(folder / "boolscore.csv", index=False)
    label = rng.integers(0, 2, ROWS).astype(str).astype(object)
    label[123] = "maybe"
    maybe = pd.DataFrame({"date": [f"2025-01-{6 + i % 20:02d}" for i in range(ROWS)], "score": score, "label": label})
    maybe.to_csv(folder / "maybe.csv", index=False)
    maybe.to_parquet(folder / "maybe.parquet")
    good = maybe.assign(label=rng.integers(0, 2, ROWS))
    good.to_csv(folder / "good.csv", index=False)
    packed = gzip.compress(good.to_csv(index=False).encode())
    (folder / "truncated.csv.gz").write_bytes(packed[: len(packed) // 2])
    segment = np.where(np.arange(ROWS) < 200, np.where(np.arange(ROWS) % 2, "north", "south"), "west")
    unrated = good.assign(region=segment, label=np.where(segment == "west", "", good["label"].astype(str)))
    unrated.to_csv(folder / "segments.csv", index=False)
    (folder / "quotes.json").write_bytes(b'{"a": "' + b'\\"' * 500_000 + b"}")
    features = pd.DataFrame(
        {"big": rng.random(ROWS), "x": rng.random(ROWS), "sex": np.where(rng.random(ROWS) < 0.5, "Female", "Male")}
    )
    features.assign(label=rng.integers(0, 2, ROWS), big=rng.random(ROWS) * 1.7e308).to_csv(
        folder / "huge_feature.csv", index=False
    )
    features.to_csv(folder / "features.csv", index=False)
    model = _model_json()
    (folder / "model.json").write_text(json.dumps(model))
    renamed = json.loads(json.dumps(model))
    renamed["preprocessing"]["numeric"][0]["column"] = "bigger"
    (folder / "renamed_model.json").write_text(json.dumps(renamed))
    _allowed_and_outside(folder)
    return folder


def _allowed_and_outside(folder: Path) -> None:
    """``allowed/`` (the OPSTUDIO_DATA_ROOTS of the roots cases) with a good file and links out, ``outside/``."""
    allowed, outside = folder / "allowed", folder / "outside"
    allowed.mkdir(exist_ok=True)
    outside.mkdir(exist_ok=True)
    (allowed / "good.csv").write_bytes((folder / "good.csv").read_bytes())
    (outside / "rated.csv").write_bytes((folder / "good.csv").read_bytes())
    (outside / "model.json").write_bytes((folder / "model.json").read_bytes())
    for link, target in (("link.csv", outside / "rated.csv"), ("parts/part-1.csv", outside / "rated.csv")):
        (allowed / link).parent.mkdir(exist_ok=True)
        if not (allowed / link).is_symlink():
            os.symlink(target, allowed / link)


def _json(stdout: str) -> dict:
    return json.loads(stdout)


def _periods(expected_first: str, expected_count: int):
    def check(stdout: str, folder: Path) -> None:
        periods = _json(stdout)["periods"]
        assert periods[0]["start"] == expected_first and len(periods) == expected_count, (periods[0], len(periods))

    return check


def _week_starts_of(path: str):
    """The oracle of a weekly record's periods: Mondays from the first date's to the last's, by numpy."""

    def check(stdout: str, folder: Path) -> None:
        days = pd.read_csv(folder / path)["date"].astype(str).str[:10].to_numpy(dtype="datetime64[D]")
        monday = np.datetime64("1970-01-05")
        first = days.min() - (days.min() - monday).astype(int) % 7
        expected = np.arange(first, days.max() + 1, 7)
        periods = _json(stdout)["periods"]
        assert [p["start"] for p in periods[1:]] == [str(d) for d in expected[1:]]
        assert periods[0]["start"] == str(days.min()) and sum(p["rated"] for p in periods) == days.size

    return check


def _days_covered(n: int):
    def check(stdout: str, folder: Path) -> None:
        assert _json(stdout)["reviewers"]["days"] == n

    return check


def _no_nan_and(*pieces: str):
    def check(stdout: str, folder: Path) -> None:
        assert "nan" not in stdout.lower().replace("—", "") and "inf " not in stdout, stdout
        for piece in pieces:
            assert piece in stdout, (piece, stdout)

    return check


def _segment_without_rated(name: str, unrated: int, key: str = "segments_without_threshold"):
    def check(stdout: str, folder: Path) -> None:
        record = _json(stdout)
        listed = record[key] if key in record else record["segments"][key]
        assert {"segment": name, "rated_documents": 0, "unrated_documents": unrated} == {
            k: v for k, v in next(s for s in listed if s["segment"] == name).items() if k != "reason"
        }

    return check


def _money_of_periods(c: float, v: float, f: float):
    def check(stdout: str, folder: Path) -> None:
        record = _json(stdout)
        tp = sum(p["tp"] for p in record["periods"])
        fp = sum(p["fp"] for p in record["periods"])
        money = record["money"]
        assert money["cost_per_review"] == c and money["target"] == (c + f) / (v + f)
        assert abs(money["net_value"] - (v * tp - c * (tp + fp) - f * fp)) < 1e-6 * max(1.0, v * tp)

    return check


_MON = ("--threshold", "0.5", "--target", "0.3", "--json")
_SAMPLE = ("monitor", "--sample", "monitoring", "--threshold", "0.568")
_OUTSIDE = "is outside the folders this dashboard may read"

#: the command lines of the corpus
CLI_CASES: list[Case] = [
    # dates far from today: correct periods, or one line naming the range
    Case("year 2300 by week", ("monitor", "{d}/y2300.csv", *_MON), check=_week_starts_of("y2300.csv")),
    Case(
        "year 2300 by week, DuckDB",
        ("monitor", "{d}/y2300.csv", "--backend", "duckdb", *_MON),
        check=_week_starts_of("y2300.csv"),
    ),
    Case("year 2300 by day", ("monitor", "{d}/y2300.csv", "--period", "day", *_MON), check=_periods("2300-01-05", 56)),
    Case(
        "one date in year 1, weeks",
        ("monitor", "{d}/year1.csv", *_MON),
        "The dates run from 0001-01-01 to 2025-01-06: 105,609 weeks",
    ),
    Case(
        "one date in year 1, weeks, DuckDB",
        ("monitor", "{d}/year1.csv", "--backend", "duckdb", *_MON),
        "105,609 weeks, more than the 10,000 periods",
    ),
    Case(
        "one date in year 1, months",
        ("monitor", "{d}/year1.csv", "--period", "month", *_MON),
        "24,289 months, more than the 10,000 periods monitored at once. Keep only the dates",
    ),
    Case("one date in year 1, days", ("monitor", "{d}/year1.csv", "--period", "day", *_MON), "739,257 days"),
    Case(
        "25 years of days", ("monitor", "{d}/days25y.csv", "--period", "day", *_MON), check=_periods("2000-01-01", 9132)
    ),
    Case(
        "25 years of days, DuckDB",
        ("monitor", "{d}/days25y.csv", "--period", "day", "--backend", "duckdb", *_MON),
        check=_periods("2000-01-01", 9132),
    ),
    Case(
        "300 years of days, DuckDB",
        ("monitor", "{d}/y300.csv", "--period", "day", "--backend", "duckdb", *_MON),
        "Choose a coarser period (month: 3,589 months)",
    ),
    Case("300 years of weeks", ("monitor", "{d}/y300.csv", *_MON), "15,602 weeks"),
    Case(
        "300 years of months, DuckDB",
        ("monitor", "{d}/y300.csv", "--period", "month", "--backend", "duckdb", *_MON),
        check=_periods("1700-01-01", 3589),
    ),
    Case(
        "across pandas' 2262 limit, days",
        ("monitor", "{d}/cross2262.csv", "--period", "day", *_MON),
        check=_periods("2262-04-05", 10),
    ),
    Case(
        "at pandas' 2262 limit, DuckDB",
        ("monitor", "{d}/edge2262.csv", "--period", "day", "--backend", "duckdb", *_MON),
        check=_periods("2262-04-11", 3),
    ),
    Case(
        "reviewers over 10 days of 2262",
        ("sweep", "{d}/cross2262.csv", "--reviewers", "2", "--reviews-per-day", "10", "--json"),
        check=_days_covered(10),
    ),
    Case(
        "monitor reviewers over 10 days of 2262",
        ("monitor", "{d}/cross2262.csv", "--reviewers", "2", "--reviews-per-day", "10", *_MON),
        check=_days_covered(10),
    ),
    # options that were silently ignored or printed nan
    Case(
        "reviewers 0 with --json",
        (*_SAMPLE, "--target", "0.3", "--reviewers", "0", "--reviews-per-day", "10", "--json"),
        "reviewers must be a finite number > 0, got 0",
    ),
    Case(
        "reviewers -1",
        (*_SAMPLE, "--target", "0.3", "--reviewers", "-1", "--reviews-per-day", "10"),
        "reviewers must be a finite number > 0",
    ),
    Case(
        "reviewers nan",
        (*_SAMPLE, "--target", "0.3", "--reviewers", "nan", "--reviews-per-day", "10", "--json"),
        "reviewers must be a finite number > 0, got nan",
    ),
    Case(
        "reviews per day inf",
        (*_SAMPLE, "--target", "0.3", "--reviewers", "2", "--reviews-per-day", "inf", "--json"),
        "reviews per day must be a finite number > 0, got inf",
    ),
    Case(
        "reviewers 1e308 twice",
        (*_SAMPLE, "--target", "0.3", "--reviewers", "1e308", "--reviews-per-day", "1e308", "--json"),
        "is not a capacity a team has",
    ),
    Case("window 0", (*_SAMPLE, "--target", "0.3", "--window", "0"), "window must be a whole number >= 1, got 0"),
    Case(
        "level nan", (*_SAMPLE, "--target", "0.3", "--level", "nan"), "level must be a finite number in (0, 1), got nan"
    ),
    Case(
        "threshold inf",
        ("monitor", "--sample", "monitoring", "--threshold", "inf", "--target", "0.3"),
        "threshold must be a finite number, got inf",
    ),
    Case("target nan", (*_SAMPLE, "--target", "nan"), "target must be a finite number, got nan"),
    Case(
        "review cost 1e308",
        (*_SAMPLE, "--review-cost", "1e308", "--value-per-positive", "1.7e308", "--cost-per-false-positive", "1e308"),
        "review cost must be a finite number in [0, 1e+15], got 1e+308",
    ),
    Case(
        "value per positive 0",
        (*_SAMPLE, "--review-cost", "3", "--value-per-positive", "0"),
        "value per positive (0) must exceed the review cost (3)",
    ),
    Case(
        "a break-even that underflows to 0",
        ("sweep", "--sample", "synthetic", "--review-cost", "5e-324", "--value-per-positive", "1e15"),
        "gives a break-even of 0.0, which no threshold can meet",
    ),
    Case(
        "a break-even just under 1",
        ("sweep", "--sample", "synthetic", "--review-cost", "9.9999999", "--value-per-positive", "10"),
        check=_no_nan_and("0.99999999", "none"),
    ),
    Case(
        "a target above every score",
        ("sweep", "--sample", "bank", "--target", "0.95"),
        check=_no_nan_and("none", "flags nothing"),
    ),
    Case("a subnormal target", ("sweep", "--sample", "synthetic", "--target", "1e-320"), check=_no_nan_and("1e-320")),
    Case(
        "capacity nan",
        ("sweep", "--sample", "synthetic", "--by", "region", "--capacity", "nan"),
        "capacity must be a finite number of reviews >= 0",
    ),
    Case(
        "sweep reviewers 0",
        ("sweep", "--sample", "monitoring", "--reviewers", "0", "--reviews-per-day", "10"),
        "reviewers must be a finite number > 0",
    ),
    Case(
        "money with the monitor's JSON",
        (*_SAMPLE, "--review-cost", "2", "--value-per-positive", "9", "--cost-per-false-positive", "1", "--json"),
        check=_money_of_periods(2.0, 9.0, 1.0),
    ),
    # truncated gzip on every backend, in the same words
    Case(
        "truncated gzip, memory",
        ("monitor", "{d}/truncated.csv.gz", *_MON),
        "looks gzip-compressed but cannot be decompressed (the compressed stream ends early)",
    ),
    Case(
        "truncated gzip, DuckDB",
        ("monitor", "{d}/truncated.csv.gz", "--backend", "duckdb", *_MON),
        "looks gzip-compressed but cannot be decompressed (the compressed stream ends early)",
    ),
    Case(
        "truncated gzip, sweep DuckDB",
        ("sweep", "{d}/truncated.csv.gz", "--backend", "duckdb", "--target", "0.3"),
        "the compressed stream ends early",
    ),
    # one message for a bad label (memory and DuckDB here; Spark in the marked test)
    Case(
        "maybe at row 124, memory",
        ("sweep", "{d}/maybe.csv", "--target", "0.3"),
        "Column 'label': unknown label values 'maybe' at row 124 (row 1 = first data row).",
    ),
    Case(
        "maybe at row 124, DuckDB",
        ("sweep", "{d}/maybe.csv", "--backend", "duckdb", "--target", "0.3"),
        "Column 'label': unknown label values 'maybe' at row 124 (row 1 = first data row).",
    ),
    Case(
        "maybe at row 124, Parquet on DuckDB",
        ("monitor", "{d}/maybe.parquet", "--backend", "duckdb", *_MON),
        "Column 'label': unknown label values 'maybe' at row 124 (row 1 = first data row).",
    ),
    Case(
        "a true/false score, DuckDB",
        ("monitor", "{d}/boolscore.csv", "--classifier", "flag", "--backend", "duckdb", *_MON),
        "Score column 'flag': true/false values, not numbers.",
    ),
    Case(
        "a true/false score, memory",
        ("monitor", "{d}/boolscore.csv", "--classifier", "flag", *_MON),
        "Score column 'flag': true/false values, not numbers.",
    ),
    # residuals
    Case(
        "1 MB of escaped quotes in a model JSON",
        ("predict", "{d}/quotes.json", "{d}/features.csv", "--out", "{d}/out.csv"),
        "is not valid JSON (Unterminated string",
    ),
    Case(
        "a feature near 1e308",
        (
            "constrain",
            "{d}/huge_feature.csv",
            "--label",
            "label",
            "--group",
            "sex=Female",
            "--demographic-parity",
            "0.8",
            "--model-out",
            "{d}/m.json",
            "--predictions-out",
            "{d}/p.csv",
        ),
        "Numeric column 'big': its values are too large to standardise",
    ),
    Case(
        "a renamed preprocessing column",
        ("predict", "{d}/renamed_model.json", "{d}/features.csv", "--out", "{d}/out.csv"),
        "entry 0 is 'big' where the preprocessing makes 'bigger'",
    ),
    Case(
        "a segment with only unrated rows, sweep",
        ("sweep", "{d}/segments.csv", "--by", "region", "--target", "0.3", "--json"),
        check=_segment_without_rated("west", 100),
    ),
    Case(
        "a segment with only unrated rows, monitor",
        ("monitor", "{d}/segments.csv", "--reviewers", "1", "--reviews-per-day", "5", "--by", "region", *_MON),
        check=_segment_without_rated("west", 100),
    ),
    # reads outside OPSTUDIO_DATA_ROOTS, refused in one message whether the file exists or not
    Case("monitor outside", ("monitor", "{d}/outside/rated.csv", *_MON), _OUTSIDE, roots=True),
    Case("monitor outside, no such file", ("monitor", "{d}/outside/nothing.csv", *_MON), _OUTSIDE, roots=True),
    Case("monitor through a link pointing out", ("monitor", "{d}/allowed/link.csv", *_MON), _OUTSIDE, roots=True),
    Case("monitor by ../", ("monitor", "{d}/allowed/../outside/rated.csv", *_MON), _OUTSIDE, roots=True),
    Case(
        "monitor DuckDB outside",
        ("monitor", "{d}/outside/rated.csv", "--backend", "duckdb", *_MON),
        _OUTSIDE,
        roots=True,
    ),
    Case(
        "sweep DuckDB outside",
        ("sweep", "{d}/outside/rated.csv", "--backend", "duckdb", "--target", "0.3"),
        _OUTSIDE,
        roots=True,
    ),
    Case("sweep memory outside", ("sweep", "{d}/outside/rated.csv", "--target", "0.3"), _OUTSIDE, roots=True),
    Case(
        "paths DuckDB glob outside",
        ("paths", "{d}/outside/*.csv", "--backend", "duckdb", "--target", "0.3"),
        _OUTSIDE,
        roots=True,
    ),
    Case(
        "a glob inside matching a link out",
        ("sweep", "{d}/allowed/parts/*.csv", "--backend", "duckdb", "--target", "0.3"),
        _OUTSIDE,
        roots=True,
    ),
    Case(
        "predict a model outside",
        ("predict", "{d}/outside/model.json", "{d}/allowed/good.csv", "--out", "{d}/out.csv"),
        _OUTSIDE,
        roots=True,
    ),
    Case("monitor inside", ("monitor", "{d}/allowed/good.csv", *_MON), roots=True, check=_periods("2025-01-06", 3)),
    Case(
        "a sample with the folders set",
        (*_SAMPLE, "--target", "0.3", "--json"),
        roots=True,
        check=_periods("2025-01-06", 52),
    ),
    Case(
        "a sample on DuckDB with the folders set",
        (*_SAMPLE, "--target", "0.3", "--backend", "duckdb", "--json"),
        roots=True,
        check=_periods("2025-01-06", 52),
    ),
]
