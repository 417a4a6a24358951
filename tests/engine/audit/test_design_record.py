"""The design record: what a plan was made for, written beside it, and the estimate held to it.

Oracles: the record of a plan made again from the shipped population is the shipped record; a reviewed plan
read back from its own file is accepted by its own record (and its rows' digest is the record's key); every
edit of the file or the rated data that changes the numbers is refused, naming where.
"""

import json

import numpy as np
import pandas as pd
import pytest

from engine.audit import PopulationColumns, estimate, load_audit, plan
from engine.audit._audit_file import audit_from_frame
from engine.audit._design_records import MAX_LISTED_ABOVE, canonical_scores
from engine.audit._population import memory_population
from engine.audit.designs import (
    check_design,
    check_rated,
    design_json,
    design_path,
    design_record,
    load_design,
    plan_rows_sha256,
)
from engine.errors import InputError
from engine.io import load_rated, rated_from_frame, read_table, sample_path

COLS = PopulationColumns("doc", "s")


@pytest.fixture(scope="module")
def own():
    """A population with known labels, its plan, the reviewed plan's cells and the rated data above the line."""
    rng = np.random.default_rng(4)
    n = 3000
    s = np.round(rng.beta(0.5, 3, n), 6)
    truth = (rng.random(n) < s).astype(int)
    frame = pd.DataFrame({"doc": [f"d{i}" for i in range(n)], "s": s, "truth": truth})
    planned = plan(memory_population(frame, COLS, name="'own.csv'"), below=0.6, budget=120, strata=4, seed=3)
    cells = read_table(planned.csv(), delimiter=",").frame
    cells["label"] = frame.set_index("doc")["truth"].loc[planned.rows["id"]].to_numpy()
    rated = rated_from_frame(frame.loc[s >= 0.6, ["s", "truth"]].rename(columns={"truth": "label"}))
    return frame, planned, design_record(planned), cells, rated


def test_the_record_holds_what_the_plan_was_made_for(own):
    frame, planned, design, cells, _ = own
    assert design["format"] == "opstudio audit design" and design["version"] == 1
    assert (design["review_threshold"], design["seed"], design["score_column"]) == (0.6, 3, "s")
    assert design["population"]["documents"] == len(frame) and design["population"]["id_column"] == "doc"
    assert design["population"]["fingerprint"] == memory_population(frame, COLS).identity()
    assert [s["sample"] for s in design["strata"]] == [s.sample for s in planned.strata]
    above = np.sort(frame.loc[frame["s"] >= 0.6, "s"].to_numpy())
    assert design["above"]["documents"] == above.size and design["above"]["scores"] == above.tolist()
    # the key: the reviewed plan read back from its file has the rows' digest the record holds
    assert plan_rows_sha256(audit_from_frame(cells)) == design["rows_sha256"]
    assert json.loads(design_json(design)) == design == load_design(design_json(design))


def test_the_shipped_record_is_the_record_of_the_shipped_plan_made_again():
    frame = pd.read_csv(sample_path("satimage_population"))
    again = plan(
        memory_population(frame, PopulationColumns("doc_id", "score", "score"), name="'satimage_population.csv.gz'"),
        below=0.9,
        budget=300,
        strata=6,
        seed=0,
        prior_column="score",
    )
    shipped = design_path(sample_path("satimage_audit"))
    assert shipped.name == "satimage_audit.json"
    assert design_json(design_record(again)) == shipped.read_bytes()
    audit = load_audit(sample_path("satimage_audit"))  # found beside the CSV
    assert audit.design == load_design(shipped)


def test_the_studios_own_reviewed_plan_is_accepted_and_estimated(own):
    frame, _, design, cells, rated = own
    audit = check_design(audit_from_frame(cells), design)
    result = estimate(rated, audit)
    truth = int(frame.loc[frame["s"] < 0.6, "truth"].sum())
    assert result.positives.lower <= truth <= result.positives.upper


def _edit_top(cells, column, value):
    out = cells.copy()
    top = out["stratum"] == out["stratum"].max()
    out[column] = out[column].astype(float)
    out.loc[top, column] = value(out.loc[top])
    return out


def _resize_top(cells, documents):
    out = _edit_top(cells, "stratum_documents", lambda r: documents(r["stratum_documents"]))
    top = out["stratum"] == out["stratum"].max()
    out.loc[top, "inclusion_probability"] = out.loc[top, "stratum_sample"] / out.loc[top, "stratum_documents"]
    out.loc[top, "weight"] = out.loc[top, "stratum_documents"] / out.loc[top, "stratum_sample"]
    return out


@pytest.mark.parametrize(
    "edit,message",
    [
        (lambda c: _resize_top(c, lambda d: d * 10), r"Column 'stratum_documents' of 'audit' at row \d+ \(stratum 4\)"),
        (lambda c: _resize_top(c, lambda d: d * 0 + 1e12), r"1,000,000,000,000 where the plan's design record says"),
        (lambda c: _resize_top(c, lambda d: c.loc[d.index, "stratum_sample"]), r"'stratum_documents' .*\(stratum 4\)"),
        (lambda c: c[c["stratum"] != c["stratum"].max()], r"has 3 strata where the plan's design record has 4"),
        (lambda c: c.drop(index=c.index[c["stratum"] == 2][:2]), r"stratum 2 lists \d+ of its \d+ planned documents"),
        (lambda c: _edit_top(c, "stratum_upper", lambda r: r["stratum_upper"] * 0 + 0.65), r"\(the review line\)"),
        (
            lambda c: c.assign(id=c["id"].where(c.index != 3, "d99999")),
            r"The ids or scores of 'audit' are not the rows",
        ),
        (lambda c: c.assign(score=c["score"].where(c.index != 3, c["score"] * 0.9)), r"are not the rows"),
    ],
)
def test_a_reviewed_plan_its_record_does_not_describe_is_refused(own, edit, message):
    _, _, design, cells, _ = own
    with pytest.raises(InputError, match=message):
        check_design(audit_from_frame(edit(cells.copy())), design)


def test_scores_rounded_to_15_digits_by_a_spreadsheet_are_the_same_rows():
    rng = np.random.default_rng(9)
    frame = pd.DataFrame({"doc": np.arange(400), "s": rng.random(400)})  # 17 significant digits
    planned = plan(memory_population(frame, COLS), below=0.9, budget=40, strata=2, seed=1)
    cells = read_table(planned.csv(), delimiter=",").frame.assign(label=0)
    rounded = cells.assign(score=[float(f"{v:.15g}") for v in cells["score"]])
    assert (rounded["score"] != cells["score"]).mean() > 0.5  # most scores changed in their last digits
    design = design_record(planned)
    assert check_design(audit_from_frame(rounded), design).design == design
    assert canonical_scores([0.1 + 0.2]).tolist() == [0.3] and canonical_scores([-0.0]).tolist() == [0.0]


def test_rated_data_of_other_documents_are_refused_naming_the_row(own):
    frame, _, design, _, rated = own
    above = frame.loc[frame["s"] >= 0.6, ["s", "truth"]].rename(columns={"truth": "label"}).reset_index(drop=True)
    assert check_rated(rated, design, "s") == []
    other = above.assign(s=above["s"].where(above.index != 5, 0.612345678))
    with pytest.raises(InputError, match=r"at row 6 \(row 1 = first data row\) it scores 0.612345678"):
        check_rated(rated_from_frame(other), design, "s")
    with pytest.raises(InputError, match=r"has \d+ rated rows .* some are missing|they are not the documents"):
        check_rated(rated_from_frame(above.iloc[1:]), design, "s")
    twice = pd.concat([above, above.iloc[[0]]], ignore_index=True)
    with pytest.raises(InputError, match=r"no \(other\) document scoring that there"):
        check_rated(rated_from_frame(twice), design, "s")
    # a row rated below the line is left out (a warning of the estimate), not refused
    below = pd.concat([above, pd.DataFrame({"s": [0.1], "label": [0]})], ignore_index=True)
    assert check_rated(rated_from_frame(below), design, "s") == []


def test_unrated_rows_and_weights_are_counted_as_possible_documents(own):
    frame, _, design, _, _ = own
    above = frame.loc[frame["s"] >= 0.6, ["s", "truth"]].rename(columns={"truth": "label"}).reset_index(drop=True)
    unrated = above.assign(label=above["label"].astype(object).where(above.index % 4 != 0, ""))
    assert check_rated(rated_from_frame(unrated), design, "s") == []
    too_few = above.iloc[: len(above) // 2].assign(label="")
    with pytest.raises(InputError, match="some are missing"):
        check_rated(rated_from_frame(pd.concat([above.iloc[:2], too_few.iloc[:1]])), design, "s")
    weighted = above.iloc[::2].assign(weight=2.0)  # a weighted sample of the flagged documents
    assert check_rated(rated_from_frame(weighted), design, "s") == []


def test_above_the_listing_limit_the_digest_decides(own, monkeypatch):
    import engine.audit._design_records as module

    frame, planned, _, _, rated = own
    monkeypatch.setattr(module, "MAX_LISTED_ABOVE", 10)
    design = module.design_record(planned)
    assert design["above"]["scores"] is None and MAX_LISTED_ABOVE == 100_000
    assert check_rated(rated, design, "s") == []
    above = frame.loc[frame["s"] >= 0.6, ["s", "truth"]].rename(columns={"truth": "label"}).reset_index(drop=True)
    with pytest.raises(InputError, match="their SHA-256 differs"):
        check_rated(rated_from_frame(above.assign(s=above["s"] + 1e-6)), design, "s")
    unrated = above.assign(label=above["label"].astype(object).where(above.index != 0, ""))
    (warning,) = check_rated(rated_from_frame(unrated), design, "s")
    assert "by its number of documents at or above the line only" in warning


def _mangled(design, path, value):
    out = json.loads(json.dumps(design))
    node = out
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return out


@pytest.mark.parametrize(
    "path,value,message",
    [
        (("format",), "x", r"field 'format' must be 'opstudio audit design'"),
        (("version",), 2, r"field 'version' must be 1"),
        (("review_threshold",), "0.6", r"field 'review_threshold' must be a finite number"),
        (("seed",), -1, r"field 'seed' must be a whole number from 0"),
        (("seed",), True, r"field 'seed' must be a whole number"),
        (("level",), 1.5, r"field 'level' must be in \(0, 1\)"),
        (("allocation",), "random", r"field 'allocation' must be one of proportional, neyman, equal"),
        (("strata",), [], r"field 'strata' must be a list of 1 to 40 strata"),
        (("strata", 1, "stratum"), 7, r"field 'strata\[1\].stratum' must be a whole number from 2 to 2"),
        (("strata", 0, "documents"), 2**60, r"field 'strata\[0\].documents' must be a whole number from 1"),
        (("strata", 0, "sample"), 0, r"field 'strata\[0\].sample' must be a whole number from 1"),
        (("strata", 2, "lower"), 0.0, r"field 'strata\[2\].lower' must continue the stratum below it"),
        (("strata", 3, "upper"), 0.7, r"field 'strata\[3\].upper' must be the review threshold"),
        (("above", "scores"), "all", r"field 'above.scores' must be null or a list of"),
        (("above", "scores_sha256"), "abc", r"field 'above.scores_sha256' must be a SHA-256"),
        (("rows_sha256",), None, r"field 'rows_sha256' must be a SHA-256"),
        (("population", "fingerprint", "kind"), "guess", r"field 'population.fingerprint.kind' must be one of"),
        (("population", "documents"), 5, r"field 'population.documents' must be the documents of the strata plus"),
        (("population", "name"), "", r"field 'population.name' must be a non-empty text"),
    ],
)
def test_a_record_of_the_wrong_shape_is_refused_naming_the_field(own, path, value, message):
    design = own[2]
    with pytest.raises(InputError, match=message):
        load_design(_mangled(design, path, value), name="plan.json")


def test_a_record_file_is_read_within_limits(tmp_path):
    for raw, message in [
        (b"{", r"The design record 'x.json' is not valid JSON"),
        (b'{"level": NaN}', r"NaN is not a JSON number"),
        (b"[" * 100 + b"]" * 100, r"nests objects or arrays 100 deep"),
        (b"[" * 100_000, r"nests objects or arrays too deep"),
        (b'"' + b'\\"' * 70_000, r"is not valid JSON"),  # escaped quotes: refused at once, no backtracking
        (b"\xff\xfe{}", r"design record 'x.json'"),
        (b" " * (9 * 2**20), r"larger than 8 MB"),
    ]:
        with pytest.raises(InputError, match=message):
            load_design(raw, name="x.json")
    with pytest.raises(InputError, match="does not exist"):
        load_design(str(tmp_path / "missing.json"))


def test_the_record_is_found_beside_its_plan_file(tmp_path):
    assert design_path("a/plan.csv").as_posix() == "a/plan.json"
    assert design_path("reviewed.csv.gz").name == "reviewed.json" and design_path("plan").name == "plan.json"
    rated = load_rated(sample_path("satimage_rated"))
    (tmp_path / "reviewed.csv").write_bytes(sample_path("satimage_audit").read_bytes())
    bare = load_audit(tmp_path / "reviewed.csv")
    assert bare.design is None
    with pytest.raises(InputError, match="has no design record"):
        estimate(rated, bare)
    (tmp_path / "reviewed.json").write_bytes(design_path(sample_path("satimage_audit")).read_bytes())
    assert estimate(rated, load_audit(tmp_path / "reviewed.csv")).positives_found == 1
    (tmp_path / "reviewed.json").write_text("{}")
    with pytest.raises(InputError, match="field 'format' is missing"):
        load_audit(tmp_path / "reviewed.csv")  # a record beside it that does not fit is never ignored
