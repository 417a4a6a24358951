"""Planning an audit in memory: strata, sizes and documents against a brute-force oracle, and every refusal."""

import numpy as np
import pandas as pd
import pytest

from engine.audit import PLAN_COLUMNS, plan
from engine.audit._audit_file import audit_from_frame
from engine.audit._design import allocate, quantile_ranks, stratum_levels
from engine.audit._population import PopulationColumns, memory_population
from engine.audit._selection import selection_keys
from engine.errors import InputError

COLS = PopulationColumns("doc", "s", "p")


@pytest.fixture(scope="module")
def frame():
    rng = np.random.default_rng(3)
    n = 20_000
    return pd.DataFrame(
        {"doc": rng.permutation(n) * 7 + 11, "s": np.round(rng.beta(0.4, 6, n), 4), "p": rng.random(n) * 0.05}
    )


def brute_force(frame, below, budget, strata, seed, allocation="proportional", prior=False):
    s = frame["s"].to_numpy()
    under = s < below
    sorted_scores = np.sort(s[under])
    lowers = np.unique(np.r_[sorted_scores[0], sorted_scores[quantile_ranks(under.sum(), stratum_levels(strata))]])
    h = np.searchsorted(lowers, s[under], side="right") - 1
    docs = np.bincount(h)
    p = np.bincount(h, weights=frame["p"].to_numpy()[under]) / docs if prior else None
    sizes = allocate(budget, docs, allocation, p)
    ids = frame["doc"].astype(str).to_numpy(dtype=object)[under]
    keys = selection_keys(ids, seed)
    chosen = set()
    for k in range(docs.size):
        chosen |= {i for _, i in sorted(zip(keys[h == k], ids[h == k]))[: sizes[k]]}
    return lowers, docs, sizes, chosen


@pytest.mark.parametrize(
    "strata,allocation,prior",
    [(6, "proportional", False), (4, "neyman", True), (1, "proportional", False), (8, "equal", False)],
)
def test_memory_plan_equals_the_brute_force_oracle(frame, strata, allocation, prior):
    cols = COLS if prior else PopulationColumns("doc", "s")
    result = plan(
        memory_population(frame, cols),
        below=0.3,
        budget=700,
        strata=strata,
        allocation=allocation,
        seed=5,
        prior_column="p" if prior else None,
    )
    lowers, docs, sizes, chosen = brute_force(frame, 0.3, 700, strata, 5, allocation, prior)
    assert [s.lower for s in result.strata] == list(lowers)
    assert [s.documents for s in result.strata] == list(docs) and [s.sample for s in result.strata] == list(sizes)
    assert set(result.rows["id"]) == chosen and result.budget == 700
    table = result.table()
    assert list(table.columns) == list(PLAN_COLUMNS) and (table["label"] == "").all()
    assert (table["score"] < 0.3).all() and table["score"].is_monotonic_decreasing
    assert np.allclose(table["inclusion_probability"] * table["weight"], 1)
    assert result.above == int((frame["s"] >= 0.3).sum()) and result.population == len(frame)


def test_the_same_seed_selects_the_same_documents_and_another_seed_others(frame):
    pop = memory_population(frame, PopulationColumns("doc", "s"))
    a, b = (plan(pop, below=0.3, budget=500, seed=1).table() for _ in range(2))
    c = plan(pop, below=0.3, budget=500, seed=2).table()
    assert a.equals(b) and len(set(a["id"]) & set(c["id"])) < 100


def test_the_plan_round_trips_through_the_audit_reader(frame):
    table = plan(memory_population(frame, PopulationColumns("doc", "s")), below=0.3, budget=300, seed=0).table()
    table["label"] = np.where(table["score"] > 0.2, "yes", "no")
    audit = audit_from_frame(pd.read_csv(pd.io.common.StringIO(table.to_csv(index=False))))
    assert audit.review_threshold == 0.3 and audit.reviewed.sum() == 300
    assert audit.positives.sum() == int((table["score"] > 0.2).sum())


def test_half_width_chooses_the_smallest_budget(frame):
    pop = memory_population(frame, COLS)
    result = plan(pop, below=0.3, half_width=60, prior_column="p")
    assert result.allocation == "neyman" and result.expected_half_width <= 60
    smaller = plan(pop, below=0.3, budget=result.budget - 1, prior_column="p")
    assert smaller.expected_half_width > 60


def test_ties_merge_strata_with_a_warning():
    frame = pd.DataFrame({"doc": range(1000), "s": np.r_[np.zeros(900), np.linspace(0.1, 0.2, 100)]})
    result = plan(memory_population(frame, PopulationColumns("doc", "s")), below=0.5, budget=50, strata=6)
    assert len(result.strata) < 6 and min(s.documents for s in result.strata) >= 1
    assert any("tied scores" in w for w in result.warnings)


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"below": 0.3, "budget": 100, "half_width": 5}, "not both"),
        ({"below": 0.3}, "not both"),
        ({"below": float("nan"), "budget": 100}, "finite"),
        ({"below": -1, "budget": 100}, "No document"),
        ({"below": 0.3, "budget": 5, "strata": 6}, "at least 2 per stratum"),
        ({"below": 0.3, "budget": 10**6}, "every document below the line"),
        ({"below": 0.3, "half_width": 10}, "--half-width needs"),
        ({"below": 0.3, "budget": 100, "allocation": "neyman"}, "prior"),
        ({"below": 0.3, "budget": 100, "strata": 0}, "--strata"),
        ({"below": 0.3, "budget": 100, "seed": -4}, "--seed"),
        ({"below": 0.3, "budget": 100, "spacing": "log"}, "spacing"),
        ({"below": 0.3, "budget": 100, "level": 95}, "level"),
    ],
)
def test_bad_arguments_are_input_errors(frame, kwargs, message):
    with pytest.raises(InputError, match=message):
        plan(memory_population(frame, PopulationColumns("doc", "s")), **kwargs)


@pytest.mark.parametrize(
    "column,values,message",
    [
        ("s", ["0.1", "abc", "0.2"], "non-numeric"),
        ("s", [0.1, np.nan, 0.2], "no score"),
        ("s", [0.1, np.inf, 0.2], "infinite"),
        ("doc", [1.5, 2.5, 3.5], "decimal"),
        ("doc", ["a", None, "c"], "no id"),
        ("p", [0.1, 1.5, 0.2], "Prior column"),
    ],
)
def test_bad_rows_are_refused_with_the_column_and_the_count(column, values, message):
    frame = pd.DataFrame({"doc": ["a", "b", "c"], "s": [0.1, 0.2, 0.3], "p": [0.1, 0.1, 0.1]})
    frame[column] = values
    with pytest.raises(InputError, match=message):
        plan(memory_population(frame, COLS), below=0.5, budget=2, strata=1)


def test_a_pilot_audit_gives_the_anticipated_prevalences():
    from engine.audit import load_audit
    from engine.audit._design import pilot_prevalence
    from engine.io._samples import sample_path

    frame = pd.read_csv(sample_path("satimage_population"))
    pilot = load_audit(sample_path("satimage_audit"))
    result = plan(
        memory_population(frame, PopulationColumns("doc_id", "score")),
        below=0.9,
        budget=200,
        strata=4,
        pilot=pilot,
        seed=1,
    )
    assert result.allocation == "neyman" and result.prevalence_source == "pilot audit 'satimage_audit.csv'"
    expected = pilot_prevalence(
        pilot.scores, pilot.labels, pilot.weights, [s.lower for s in result.strata], [s.upper for s in result.strata]
    )
    assert [s.prevalence for s in result.strata] == pytest.approx(list(expected))
    assert result.expected_half_width > 0


def test_the_plan_file_writes_integer_ids_as_numbers_and_neutralises_formulas():
    frame = pd.DataFrame({"doc": ["=HYPERLINK(1)", "b", "c", "d"], "s": [0.1, 0.2, 0.3, 0.4]})
    text = plan(memory_population(frame, PopulationColumns("doc", "s")), below=0.9, budget=4, strata=1).csv().decode()
    assert "'=HYPERLINK(1)" in text and "\n=HYPERLINK" not in text
    numbers = pd.DataFrame({"doc": [-5, 7, 9], "s": [0.1, 0.2, 0.3]})
    written = pd.read_csv(
        pd.io.common.StringIO(
            plan(memory_population(numbers, PopulationColumns("doc", "s")), below=0.9, budget=3, strata=1)
            .csv()
            .decode()
        )
    )
    assert sorted(written["id"]) == [-5, 7, 9]


def test_merged_and_separate_candidate_scans_and_widening_select_the_same_documents(monkeypatch):
    import importlib

    plan_module = importlib.import_module("engine.audit._plan")  # the module (engine.audit.plan is the function)

    rng = np.random.default_rng(8)
    # 70 % of the documents tie at 0: the strata sizes guessed from ranks are far off, so strata fall short
    frame = pd.DataFrame(
        {"doc": np.arange(30_000), "s": np.where(rng.random(30_000) < 0.7, 0.0, np.round(rng.random(30_000), 3))}
    )
    pop = memory_population(frame, PopulationColumns("doc", "s"))
    merged = plan(pop, below=0.9, budget=900, strata=6, seed=2).table()
    monkeypatch.setattr(plan_module, "MERGED_CANDIDATES", 0)
    separate = plan(pop, below=0.9, budget=900, strata=6, seed=2).table()
    pd.testing.assert_frame_equal(merged, separate)
    _, _, _, chosen = brute_force(frame.assign(p=0.0), 0.9, 900, 6, 2)
    assert set(merged["id"].astype(str)) == chosen


def test_a_stratum_short_of_candidates_is_read_again_wider(frame, monkeypatch):
    import importlib

    plan_module = importlib.import_module("engine.audit._plan")
    pop = memory_population(frame, PopulationColumns("doc", "s"))
    expected = plan(pop, below=0.3, budget=500, seed=6).table()
    real, widths = plan_module.cutoffs, []

    def stingy(docs, sizes, widen=1):  # the first reading finds nothing at all
        widths.append(widen)
        return ["0000000000000000"] * len(docs) if widen == 1 else real(docs, sizes, widen)

    monkeypatch.setattr(plan_module, "MERGED_CANDIDATES", 0)
    monkeypatch.setattr(plan_module, "cutoffs", stingy)
    pd.testing.assert_frame_equal(plan(pop, below=0.3, budget=500, seed=6).table(), expected)
    assert 1 in widths and 4 in widths
