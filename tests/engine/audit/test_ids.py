"""Ids read back exactly: the studio's own plan is always accepted by its own estimate, in memory and on DuckDB.

Property (hypothesis over text ids): plan a population, write plan.csv and plan.json, fill in the labels, read
both back and estimate — the ids read back are the population's ids, the design record accepts the plan, and
DuckDB (Parquet and CSV) selects the very same documents as memory.
"""

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.audit import PopulationColumns, estimate, load_audit, plan
from engine.audit._audit_file import UNWRITABLE_ID, audit_from_frame, plan_id_cells, read_plan_ids
from engine.audit._population import memory_population
from engine.audit.designs import check_design, design_json, design_record
from engine.backends._duckdb import DuckSource
from engine.backends._duckdb_audit import DuckPopulation
from engine.errors import InputError
from engine.io import rated_from_frame, read_table
from engine.reporting import csv_bytes

COLS = PopulationColumns("doc", "score")
#: ids that read back as something else unless the plan marks them
TRICKY = [
    "00140",
    "140",
    "=A1",
    "'=A1",
    "''x",
    "'",
    "+5",
    "-5",
    "-0",
    "@sum",
    "a,b",
    'q"q',
    'say "hi", then',
    "n\nl",
    "tab\there",
    "\tlead",
    " lead",
    "trail ",
    "  ",
    "NA",
    "null",
    "None",
    "nan",
    "TRUE",
    "false",
    "1e5",
    "inf",
    "-Infinity",
    "1.50",
    "#N/A",
    "é",
    "日本",
    "x;y|z",
    "\ufeffbom",
]
#: characters a plan file does not carry (refused when the plan is made)
UNWRITABLE = "".join(map(chr, [*range(0, 9), *range(11, 32), *range(127, 160), 0x2028, 0x2029]))


def population(ids, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"doc": list(ids), "score": np.round(rng.random(len(ids)), 6)})


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters=UNWRITABLE), max_size=12),
        min_size=2,
        max_size=25,
        unique=True,
    ).filter(lambda ids: "" not in ids)
)
def test_the_plan_file_gives_every_text_id_back(ids):
    cells = plan_id_cells(ids)
    frame = pd.DataFrame({"id": cells, "x": 1})
    read = read_table(csv_bytes(frame), delimiter=",").frame["id"]
    assert list(read_plan_ids(read)) == list(ids)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(
    st.lists(
        st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters=UNWRITABLE), min_size=1, max_size=10),
        min_size=3,
        max_size=30,
        unique=True,
    ),
    st.integers(0, 2**16),
)
def test_the_studios_own_plan_is_accepted_by_its_own_estimate_in_memory_and_on_duckdb(tmp_path_factory, ids, seed):
    frame = population(ids, seed)
    frame.loc[0, "score"] = 0.9  # one document above the line, one below at least
    frame.loc[1, "score"] = 0.1
    memory = plan(memory_population(frame, COLS), below=0.8, budget=int((frame["score"] < 0.8).sum()), strata=1)
    design = design_record(memory)
    cells = read_table(memory.csv(), delimiter=",").frame  # the reviewers fill in 'label', every other cell as written
    reviewed = cells.assign(label=["1"] + ["0"] * (len(cells) - 1))
    audit = check_design(audit_from_frame(reviewed), design)
    assert sorted(audit.ids) == sorted(frame.loc[frame["score"] < 0.8, "doc"])
    rated = rated_from_frame(pd.DataFrame({"score": frame.loc[frame["score"] >= 0.8, "score"], "label": 1}))
    assert estimate(rated, audit).positives_found == 1
    path = tmp_path_factory.mktemp("ids") / "pop.parquet"
    frame.to_parquet(path)
    duck = plan(DuckPopulation(DuckSource(str(path)), COLS), below=0.8, budget=len(cells), strata=1)
    assert duck.csv() == memory.csv() and design_record(duck)["rows_sha256"] == design["rows_sha256"]


def test_tricky_ids_read_back_through_csv_and_parquet_on_both_backends(tmp_path):
    frame = population(TRICKY, seed=3)
    frame.loc[0, "score"] = 0.95
    line = 0.99
    memory = plan(memory_population(frame, COLS), below=line, budget=len(TRICKY), strata=1)
    reviewed = read_table(memory.csv(), delimiter=",").frame.assign(label="0")
    audit = check_design(audit_from_frame(reviewed), design_record(memory))
    assert sorted(audit.ids) == sorted(TRICKY)  # every id back, none colliding ('=A1 and =A1 both there)
    frame.to_parquet(tmp_path / "pop.parquet")
    frame.to_csv(tmp_path / "pop.csv", index=False)
    for path in ("pop.parquet", "pop.csv"):
        duck = plan(DuckPopulation(DuckSource(str(tmp_path / path)), COLS), below=line, budget=len(TRICKY), strata=1)
        assert sorted(duck.rows["id"]) == sorted(TRICKY), path
        assert duck.csv() == memory.csv()


def test_zero_padded_ids_are_written_as_text_and_canonical_integers_as_numbers():
    assert plan_id_cells(["00140", "7"]).tolist() == ["'00140", "'7"]
    assert plan_id_cells(["140", "-7", "0"]).dtype == np.int64
    text = plan(
        memory_population(pd.DataFrame({"doc": ["00140", "00141"], "score": [0.1, 0.2]}), COLS),
        below=0.5,
        budget=2,
        strata=1,
    ).csv()
    assert b"'00140," in text
    assert read_plan_ids(read_table(text, delimiter=",").frame["id"]).tolist() == ["00141", "00140"]


@pytest.mark.parametrize("char", ["\x00", "\r", "\x0b", "\x1c", "\x7f", "\x85", "\u2028", "\u2029"])
def test_an_id_a_plan_file_cannot_carry_is_refused_when_planning(char):
    assert UNWRITABLE_ID.search(char)
    frame = pd.DataFrame({"doc": ["a", f"b{char}c"], "score": [0.1, 0.2]})
    with pytest.raises(
        InputError, match=rf"Id column 'doc': the id 'b.*c' holds the control character U\+{ord(char):04X}"
    ):
        plan(memory_population(frame, COLS), below=0.5, budget=2, strata=1)


def test_a_reviewed_plan_file_reads_back_whatever_its_ids_make_a_delimiter_sniffer_think(tmp_path):
    ids = [*TRICKY, '";', 'a";"b', "x|y", "p\tq;r", '"', '""']
    frame = population(ids, seed=5)
    frame.loc[0, "score"] = 0.95
    planned = plan(memory_population(frame, COLS), below=0.99, budget=len(ids) - 1, strata=1)
    raw = planned.csv()
    reviewed = raw.replace(b",\r\n", b",no\r\n") if b"\r\n" in raw else raw.replace(b",\n", b",no\n")
    (tmp_path / "reviewed.csv").write_bytes(reviewed)
    (tmp_path / "reviewed.json").write_bytes(design_json(design_record(planned)))
    audit = load_audit(tmp_path / "reviewed.csv")  # its design record found beside it
    assert audit.design is not None and sorted(audit.ids) == sorted(planned.rows["id"])
    assert (audit.labels == 0).all()
