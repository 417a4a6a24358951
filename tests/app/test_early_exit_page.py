"""Early exit page: Adult ensemble, alpha from the URL, timing, curves, uploads."""

import io
import json

import numpy as np
import pandas as pd
import pytest

from engine.qwyc import fit_qwyc
from engine.qwyc._deployment import POLICY_FORMAT
from tests.app.conftest import download_buttons, shown, upload_input

PAGE = "pages/early_exit.py"
SOURCE = "A score matrix from the Data page"


def page_on_score_matrix(at, name: str, matrix, fit_rows: int):
    """The page on an uploaded score matrix (F, labels), its first ``fit_rows`` rows the fit split."""
    f, y = matrix
    buf = io.BytesIO()
    np.savez(buf, F=f, labels=y, split=np.where(np.arange(len(y)) < fit_rows, "fit", "test"))
    at = upload_input(at, name, buf.getvalue())
    at.query_params["qwyc_source"] = SOURCE
    at.switch_page(PAGE).run()
    return at


def cards(at):
    return {m.label: m.value for m in at.main.metric}


@pytest.mark.slow
def test_adult_ensemble_policy_matches_the_engine(app, served):
    at = app(query={"qwyc_trees": "100", "qwyc_depth": "3", "alpha_pct": "1.0"}, page=PAGE)
    assert not at.exception
    assert at.slider(key="alpha_pct").value == pytest.approx(1.0)
    record = json.loads(served(download_buttons(at)["Download the policy (JSON)"]))
    assert record["format"] == POLICY_FORMAT and record["model"] is None  # trained here: no model file to name
    policy = record["policy"]
    assert policy["alpha"] == pytest.approx(0.01) and len(policy["order"]) == 100
    assert record["fit"]["disagreement_pct"] <= 1.0 + 1e-9
    assert record["fit"]["neg_only"] is False and record["fit"]["budget"] == "greedy"
    assert cards(at)["Mean # models (test)"] == f"{record['fit']['test']['mean_models']:.1f} of 100"
    assert len(at.get("plotly_chart")) == 2
    at.button(key="time_qwyc").click().run()
    assert not at.exception
    timing = at.dataframe[0].value
    assert list(timing["Trees evaluated per row (mean)"])[0] == "100"
    assert list(timing["Early exit is this many times faster"])[1] == "—"  # early exit against itself: nothing
    # the timing stays beside the settings it was made with when the page runs again for another button (it was
    # kept under the page script's Settings object, which is a new class on every run, and vanished)
    at.button(key="run_curves").click().run()
    assert not at.exception
    assert any(list(t.value.columns) == list(timing.columns) and t.value.equals(timing) for t in at.dataframe)


@pytest.mark.slow
def test_tradeoff_curves(app):
    # computed once per server: a second session's click gets the same curves (its replay of the first session's
    # progress bar from st.cache_resource used to fail: CacheReplayClosureError)
    tables = []
    for _ in range(2):
        at = app(query={"qwyc_trees": "100", "qwyc_depth": "3"}, page=PAGE)
        at.button(key="run_curves").click().run()
        assert not at.exception, at.exception
        table = at.dataframe[-1].value
        assert {"qwyc", "natural", "random", "individual_mse", "greedy_mse", "fan", "smaller"} == set(table["Method"])
        assert len(at.get("plotly_chart")) == 4
        tables.append(table)
    assert tables[0].equals(tables[1])


UPLOAD = {"qwyc_source": "Upload a score matrix"}  # open the page on the upload tab: no model is trained


def upload(at, name, content):
    at.file_uploader(key="qwyc_upload").set_value((name, content, "application/octet-stream")).run()
    return at


def score_matrix(seed=0, n=400, t=12):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 3))
    f = np.tanh(x @ rng.normal(size=(3, t))) * 0.3
    y = (x[:, 0] > 0).astype(int)
    return f, y


def test_uploaded_csv_and_npz_score_matrices(app):
    f, y = score_matrix()
    frame = pd.DataFrame(f, columns=[f"tree_{i}" for i in range(f.shape[1])])
    frame["label"] = y
    frame["split"] = np.where(np.arange(len(y)) < 300, "fit", "test")
    at = upload_input(app(), "scores.csv", frame.to_csv(index=False).encode(), kind="score_matrix")
    assert not at.exception and not at.error
    at.query_params["qwyc_source"] = SOURCE
    at.switch_page(PAGE).run()
    assert not at.exception and not at.error
    expected = fit_qwyc(f[:300], alpha=0.005).evaluate(f[300:], y[300:])
    assert cards(at)["Mean # models (test)"] == f"{expected['mean_models']:.1f} of 12"
    buf = io.BytesIO()
    np.savez(buf, F=f, labels=y)
    at = upload_input(app(), "scores.npz", buf.getvalue())
    at.query_params["qwyc_source"] = SOURCE
    at.switch_page(PAGE).run()
    assert not at.exception and not at.error
    assert "Timing" in " ".join(s.value for s in at.subheader)
    assert "scores.npz" in " ".join(o for o in at.selectbox(key="qwyc_matrix").options)


def test_without_a_score_matrix_the_page_says_where_to_add_one(app):
    at = app(query={"qwyc_source": SOURCE}, page=PAGE)
    assert not at.exception
    assert "No score matrix loaded yet" in shown(at.info)


@pytest.mark.parametrize(
    "content,expected",
    [
        (b"a,b,label\n1,2,1\n", "at least 10 rows"),
        (b"a,b\nx,1\n" + b"1,2\n" * 12, "not numeric"),
        (b"PK\x03\x04broken", "NPZ"),
    ],
)
def test_bad_score_matrices_show_errors(app, content, expected):
    at = upload_input(app(), "bad.csv", content, kind="score_matrix")
    assert not at.exception
    assert expected in shown(at.error)


def test_a_users_model_file_and_feature_table(app, served):
    import lightgbm

    from engine.qwyc._deployment import read_policy
    from engine.qwyc._models import load_model

    rng = np.random.default_rng(3)
    frame = pd.DataFrame(rng.normal(size=(600, 3)), columns=["x1", "x2", "x3"])
    y = (frame["x1"] + rng.normal(size=600) > 0).astype(int)
    model_text = (
        lightgbm.LGBMClassifier(n_estimators=40, max_depth=3, verbose=-1)
        .fit(frame, y)
        .booster_.model_to_string()
        .encode()
    )
    table = frame.assign(label=y, comment="c").to_csv(index=False).encode()
    at = upload_input(app(), "my_model.txt", model_text)
    assert not at.exception
    assert next(s for s in at.selectbox if s.label == "Kind of input").value == "model_file"  # guessed
    at = upload_input(at, "rows.csv", table, kind="feature_table")
    assert not at.exception
    at.query_params["qwyc_source"] = "Your model file and a feature table"
    at.switch_page(PAGE).run()
    assert not at.exception, at.exception
    buttons = download_buttons(at)
    policy_text = served(buttons["Download the policy (JSON)"]).decode()
    model = load_model(model_text, name="my_model.txt")
    policy = read_policy(policy_text, model)  # the file names this model
    decisions = pd.read_csv(io.BytesIO(served(buttons["Download the decisions of every table row (CSV)"])))
    f = model.ensemble.contributions(model.features(frame))
    expected, n_eval = policy.predict(f)
    assert len(decisions) == 600
    np.testing.assert_array_equal(decisions["decision"], expected.astype(int))
    np.testing.assert_array_equal(decisions["n_evaluated"], n_eval)


def test_a_promise_on_new_rows_from_a_score_matrix(app):
    rng = np.random.default_rng(8)
    signal = rng.normal(size=(3000, 1))
    f = signal * rng.uniform(0.2, 1, 30) / 4 + rng.normal(scale=0.1, size=(3000, 30))
    buf = io.BytesIO()
    np.savez(buf, F=f, labels=(signal[:, 0] > 0).astype(int))
    at = upload_input(app(), "matrix.npz", buf.getvalue())
    at.query_params["qwyc_source"] = "A score matrix from the Data page"
    at.switch_page(PAGE).run()
    assert not at.exception
    at.number_input(key="promise_pct").set_value(2.0).run()
    at.button(key="fit_promise").click().run()
    assert not at.exception
    assert "Certified" in " ".join(s.value for s in at.success)
    at.button(key="run_fidelity_curve").click().run()
    assert not at.exception
    assert "fidelity_chart" in [c.key for c in at.get("plotly_chart")]


def test_the_promised_policy_of_a_model_file_downloads_and_applies(app, served):
    import lightgbm

    from engine.qwyc._deployment import read_policy
    from engine.qwyc._models import load_model

    rng = np.random.default_rng(4)
    frame = pd.DataFrame(rng.normal(size=(1500, 3)), columns=["x1", "x2", "x3"])
    y = (frame["x1"] + rng.normal(size=1500) > 0).astype(int)
    model_text = (
        lightgbm.LGBMClassifier(n_estimators=40, max_depth=3, verbose=-1)
        .fit(frame, y)
        .booster_.model_to_string()
        .encode()
    )
    at = upload_input(app(), "m.txt", model_text)
    at = upload_input(at, "rows.csv", frame.to_csv(index=False).encode(), kind="feature_table")
    at.query_params["qwyc_source"] = "Your model file and a feature table"
    at.switch_page(PAGE).run()
    at.number_input(key="promise_pct").set_value(5.0).run()
    at.button(key="fit_promise").click().run()
    assert not at.exception
    policy = read_policy(served(download_buttons(at)["Download this policy (JSON)"]), load_model(model_text))
    assert policy.method.startswith("QWYC* with calibrated margin")


@pytest.mark.slow
def test_depth_5_reads_the_shipped_model_file_and_fits_what_the_engine_fits(app, served):
    from engine.qwyc import adult_gbt_sample

    at = app(query={"qwyc_trees": "100", "qwyc_depth": "5", "alpha_pct": "0.5"}, page=PAGE)
    assert any("shipped sample" in c.value and "adult_gbt.skops" in c.value for c in at.caption)
    record = json.loads(served(download_buttons(at)["Download the policy (JSON)"]))
    shipped = adult_gbt_sample(100)  # the oracle: the engine on the shipped file's first 100 trees
    oracle = fit_qwyc(shipped.ensemble.contributions(shipped.x_train), alpha=0.005, bias=shipped.ensemble.bias)
    assert record["policy"]["order"] == [int(t) for t in oracle.order]
    assert cards(at)["Mean # models (test)"].endswith("of 100")


@pytest.mark.slow
def test_promises_at_two_d_on_the_shipped_sample_share_one_calibration_and_equal_the_engine(app):
    """A second D reuses the server's calibration (a cached call inside another once failed to replay)."""
    from engine.qwyc import adult_gbt_sample
    from engine.qwyc._fidelity import fit_fidelity

    at = app(query={"qwyc_trees": "100", "qwyc_depth": "5"}, page=PAGE)
    shipped = adult_gbt_sample(100)
    f_fit = shipped.ensemble.contributions(shipped.x_train)
    for d_pct in (0.5, 1.0, 0.5):
        at.number_input(key="promise_pct").set_value(d_pct).run()
        at.button(key="fit_promise").click().run()
        assert not at.exception, at.exception
        oracle = fit_fidelity(f_fit, max_disagreement=d_pct / 100, bias=shipped.ensemble.bias)
        shown_text = " ".join(s.value for s in at.success)
        assert oracle.certified and f"calibration bound {100 * oracle.calibration_upper_bound:.3f} %" in shown_text
    at.button(key="run_fidelity_curve").click().run()
    assert not at.exception
    assert "fidelity_chart" in [c.key for c in at.get("plotly_chart")]


def test_a_fitted_policy_is_evaluated_and_drawn_once_per_setting(app, served, monkeypatch):
    """A step back to an α already fitted (or a rerun for another control) reuses the policy's statistics, figures
    and JSON; a new α computes them again, and they follow it."""
    from engine.qwyc import EarlyExitPolicy

    calls = []
    evaluate = EarlyExitPolicy.evaluate
    monkeypatch.setattr(EarlyExitPolicy, "evaluate", lambda self, *a, **k: calls.append(1) or evaluate(self, *a, **k))
    f, y = score_matrix(seed=5, n=600, t=20)
    at = page_on_score_matrix(app(), "steps.npz", (f, y), fit_rows=420)
    assert not at.exception

    def shown_policy():
        charts = {c.key: c.proto.spec for c in at.get("plotly_chart")}
        policy = json.loads(served(download_buttons(at)["Download the policy (JSON)"]))["policy"]
        return cards(at), charts["thresholds_chart"], charts["models_hist"], policy

    assert len(calls) == 2  # fit and test rows
    first = shown_policy()
    at.number_input(key="promise_pct").set_value(1.0).run()  # another control: nothing evaluated again
    assert not at.exception and len(calls) == 2 and shown_policy() == first
    at.slider(key="alpha_pct").set_value(5.0).run()
    assert not at.exception and len(calls) == 4
    wider = shown_policy()
    assert wider[3]["alpha"] == pytest.approx(0.05) and first[3]["alpha"] == pytest.approx(0.005)
    assert wider[1] != first[1]  # the thresholds drawn are the new policy's
    expected = fit_qwyc(f[:420], alpha=0.05)
    assert wider[3]["order"] == [int(t) for t in expected.order]
    at.slider(key="alpha_pct").set_value(0.5).run()  # back to a fitted α: shown again, not recomputed
    assert not at.exception and len(calls) == 4 and shown_policy() == first


def test_an_invisible_chart_loads_plotly_during_the_first_run_only_and_is_gone_after_it(app, monkeypatch):
    import engine.qwyc

    drawn = []
    blank = engine.qwyc.blank_figure
    monkeypatch.setattr(engine.qwyc, "blank_figure", lambda: drawn.append(1) or blank())  # where the page reads it
    at = app(query={"qwyc_trees": "100", "qwyc_depth": "3"}, page=PAGE)
    assert len(drawn) == 1
    assert [c.key for c in at.get("plotly_chart")] == ["models_hist", "thresholds_chart"]  # the slot was emptied
    at.slider(key="alpha_pct").set_value(1.0).run()
    at.switch_page(PAGE).run()  # a full run of the page again, in the same session: Plotly is loaded already
    assert not at.exception and len(drawn) == 1
    assert [c.key for c in at.get("plotly_chart")] == ["models_hist", "thresholds_chart"]


def test_the_fit_reports_its_progress_at_most_ten_times_a_second(app, monkeypatch):
    """QWYC* reports every step (500 for the shipped model); each report drawn is a message to the browser."""
    from streamlit.delta_generator import DeltaGenerator

    import engine.qwyc
    import views.state

    fit_qwyc = engine.qwyc.fit_qwyc

    def fit_reporting_every_step(*args, progress=None, **kwargs):
        for step in range(1, 501):
            progress(step, 500)
        return fit_qwyc(*args, **kwargs)

    drawn = []
    progress = DeltaGenerator.progress
    monkeypatch.setattr(DeltaGenerator, "progress", lambda self, *a, **k: drawn.append(a) or progress(self, *a, **k))
    monkeypatch.setattr(engine.qwyc, "fit_qwyc", fit_reporting_every_step)
    monkeypatch.setattr(views.state, "PROGRESS_AFTER", 0.0)  # the bar at once: these 500 reports take no time
    f, y = score_matrix(seed=6)
    buf = io.BytesIO()
    np.savez(buf, F=f, labels=y)
    at = upload_input(app(), "progress.npz", buf.getvalue())
    at.query_params["qwyc_source"] = SOURCE
    drawn.clear()
    at.switch_page(PAGE).run()
    assert not at.exception
    assert 2 <= len(drawn) <= 20  # its first report and the last (not 500)
    assert drawn[-1][0] == 1.0  # the last step is always shown


def test_no_full_garbage_collection_after_every_run(monkeypatch):
    """Streamlit's gc.collect(2) after each run walked every object of the loaded libraries on every α step (0.25-0.4 s
    of the server's interpreter); the housekeeping collects when sessions end instead."""
    import gc
    import threading
    from pathlib import Path
    from types import SimpleNamespace

    import tomllib

    from views import housekeeping

    config = tomllib.loads((Path(__file__).resolve().parents[2] / ".streamlit" / "config.toml").read_text())
    assert config["runner"]["postScriptGC"] is False
    # memory is still given back: releasing it runs a full collection (generation 2) in the caller's thread
    collections = []

    def seen(phase, info):
        if phase == "stop":
            collections.append((info["generation"], threading.get_ident()))

    gc.callbacks.append(seen)
    try:
        housekeeping.release_memory()
    finally:
        gc.callbacks.remove(seen)
    assert (2, threading.get_ident()) in collections
    # ... and the janitor releases it after every reaping that ended sessions (not when none ended)

    class Stop(BaseException):  # not an Exception: the janitor logs and survives those
        pass

    def janitor_releases(reaped: list[int]) -> int:
        """Releases by the janitor over rounds whose reaping returns ``reaped``, one after the other."""
        rounds, released = iter(reaped), []

        def reap() -> int:
            try:
                return next(rounds)
            except StopIteration:  # the rounds ran out: leave the janitor's endless loop
                raise Stop from None

        monkeypatch.setattr(housekeeping, "time", SimpleNamespace(sleep=lambda _: None, monotonic=lambda: 0.0))
        monkeypatch.setattr(housekeeping, "reap_expired_sessions", reap)
        monkeypatch.setattr(housekeeping, "release_memory", lambda: released.append(1))
        with pytest.raises(Stop):
            housekeeping._janitor(0)
        return len(released)

    assert janitor_releases([0, 0]) == 0
    assert janitor_releases([0, 2, -1, 0]) == 2  # sessions ended, or Streamlit's internals differ: trim anyway


def test_alpha_steps_share_one_start_per_tier_and_fit_what_the_engine_fits(app, served, monkeypatch):
    """The first step's tables are counted once per ensemble and tier of α; every α's policy is a fresh fit's."""
    import engine.qwyc

    made = []
    start = engine.qwyc.qwyc_start
    monkeypatch.setattr(engine.qwyc, "qwyc_start", lambda *a, **k: made.append(k["max_alpha"]) or start(*a, **k))
    f, y = score_matrix(seed=7, n=900, t=25)
    at = page_on_score_matrix(app(), "tiers.npz", (f, y), fit_rows=600)
    for alpha_pct in (0.55, 0.6, 1.0, 1.5, 4.0, 0.3):
        at.slider(key="alpha_pct").set_value(alpha_pct).run()
        assert not at.exception
        policy = json.loads(served(download_buttons(at)["Download the policy (JSON)"]))["policy"]
        assert policy["order"] == [int(t) for t in fit_qwyc(f[:600], alpha=alpha_pct / 100).order]
    assert made == [0.01, 0.02, 0.05]
