"""``opstudio qwyc fit|apply``: policy files round-trip to the engine's decisions and tree counts."""

import json

import lightgbm
import numpy as np
import pandas as pd
import pytest

from engine.cli import main
from engine.qwyc._models import load_model


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("qwyc")
    rng = np.random.default_rng(1)
    x = rng.normal(size=(3000, 4))
    y = (x[:, 0] + 0.5 * x[:, 1] + rng.normal(size=3000) > 0).astype(int)
    frame = pd.DataFrame(x, columns=["a", "b", "c", "d"])
    model = lightgbm.LGBMClassifier(n_estimators=120, max_depth=4, verbose=-1).fit(frame, y)
    model.booster_.save_model(str(tmp / "model.txt"))
    frame.assign(outcome=np.where(y == 1, "yes", "no"), note="n").to_csv(tmp / "data.csv", index=False)
    return tmp, frame, y


@pytest.mark.slow
def test_fit_then_apply_reproduces_the_engine_policy(files, capsys):
    tmp, frame, y = files
    assert (
        main(
            [
                "qwyc",
                "fit",
                str(tmp / "model.txt"),
                str(tmp / "data.csv"),
                "--alpha",
                "0.005",
                "--label",
                "outcome",
                "--policy-out",
                str(tmp / "policy.json"),
            ]
        )
        == 0
    )
    stats = json.loads(capsys.readouterr().out)
    assert stats["disagreement_pct"] <= 0.5 + 1e-9 and stats["mean_models"] < 120
    assert (
        main(
            [
                "qwyc",
                "apply",
                str(tmp / "model.txt"),
                str(tmp / "data.csv"),
                "--policy",
                str(tmp / "policy.json"),
                "--out",
                str(tmp / "decisions.csv"),
            ]
        )
        == 0
    )
    out = pd.read_csv(tmp / "decisions.csv")
    assert list(out.columns) == ["decision", "n_evaluated"] and len(out) == len(frame)
    # the same decisions and tree counts as the fitted policy on the precomputed contributions
    from engine.qwyc._deployment import read_policy

    model = load_model((tmp / "model.txt").read_bytes(), name="model.txt")
    policy = read_policy((tmp / "policy.json").read_text(), model)
    f = model.ensemble.contributions(model.features(frame))
    decision, n_eval = policy.predict(f)
    np.testing.assert_array_equal(out["decision"].to_numpy(), decision.astype(int))
    np.testing.assert_array_equal(out["n_evaluated"].to_numpy(), n_eval)
    full = model.ensemble.bias + f.sum(axis=1) >= 0
    assert np.mean(decision != full) <= 0.005
    assert out["n_evaluated"].mean() == pytest.approx(stats["mean_models"])


def test_a_policy_for_another_model_and_bad_inputs_exit_2(files, tmp_path, capsys):
    tmp, frame, y = files
    other = lightgbm.LGBMClassifier(n_estimators=10, verbose=-1).fit(frame, y)
    other.booster_.save_model(str(tmp_path / "other.txt"))
    main(
        [
            "qwyc",
            "fit",
            str(tmp / "model.txt"),
            str(tmp / "data.csv"),
            "--alpha",
            "0.01",
            "--policy-out",
            str(tmp_path / "p.json"),
        ]
    )
    capsys.readouterr()
    assert (
        main(
            [
                "qwyc",
                "apply",
                str(tmp_path / "other.txt"),
                str(tmp / "data.csv"),
                "--policy",
                str(tmp_path / "p.json"),
                "--out",
                str(tmp_path / "d.csv"),
            ]
        )
        == 2
    )
    assert "fitted for another model" in capsys.readouterr().err
    frame.drop(columns=["c"]).to_csv(tmp_path / "missing.csv", index=False)
    assert (
        main(
            [
                "qwyc",
                "fit",
                str(tmp / "model.txt"),
                str(tmp_path / "missing.csv"),
                "--alpha",
                "0.01",
                "--policy-out",
                str(tmp_path / "p2.json"),
            ]
        )
        == 2
    )
    assert "no column 'c'" in capsys.readouterr().err
    assert (
        main(
            [
                "qwyc",
                "fit",
                str(tmp / "data.csv"),
                str(tmp / "data.csv"),
                "--alpha",
                "0.01",
                "--policy-out",
                str(tmp_path / "p3.json"),
            ]
        )
        == 2
    )
    assert (
        main(
            [
                "qwyc",
                "fit",
                str(tmp / "model.txt"),
                str(tmp / "data.csv"),
                "--alpha",
                "1.5",
                "--policy-out",
                str(tmp_path / "p4.json"),
            ]
        )
        == 2
    )


def test_fit_with_a_promise_on_new_rows(files, tmp_path, capsys):
    tmp, frame, y = files
    assert (
        main(
            [
                "qwyc",
                "fit",
                str(tmp / "model.txt"),
                str(tmp / "data.csv"),
                "--max-disagreement",
                "0.02",
                "--policy-out",
                str(tmp_path / "pd.json"),
            ]
        )
        == 0
    )
    stats = json.loads(capsys.readouterr().out)
    assert stats["fidelity"]["certified"] and stats["fidelity"]["calibration_upper_bound"] <= 0.02
    assert (
        main(
            [
                "qwyc",
                "apply",
                str(tmp / "model.txt"),
                str(tmp / "data.csv"),
                "--policy",
                str(tmp_path / "pd.json"),
                "--out",
                str(tmp_path / "dd.csv"),
            ]
        )
        == 0
    )
    assert pd.read_csv(tmp_path / "dd.csv")["n_evaluated"].mean() == pytest.approx(stats["mean_models"])
    with pytest.raises(SystemExit):  # --alpha and --max-disagreement exclude each other
        main(
            [
                "qwyc",
                "fit",
                str(tmp / "model.txt"),
                str(tmp / "data.csv"),
                "--alpha",
                "0.01",
                "--max-disagreement",
                "0.01",
                "--policy-out",
                str(tmp_path / "x.json"),
            ]
        )


def _hostile_models(marker: str) -> dict:
    from tests.fuzz import model_corpus as mc

    return {**mc.lightgbm_crashers(), **mc.xgboost_crashers(), **mc.skops_payloads(marker)}


def test_damaged_and_hostile_model_files_exit_2_with_one_line(files, tmp_path, capfd):
    """capfd reads the process's file descriptors: a native library's own stderr output would show here too."""
    tmp, frame, y = files
    marker = tmp_path / "marker"
    for name, raw in _hostile_models(str(marker)).items():
        (tmp_path / name).write_bytes(raw)
        code = main(
            [
                "qwyc",
                "fit",
                str(tmp_path / name),
                str(tmp / "data.csv"),
                "--alpha",
                "0.01",
                "--policy-out",
                str(tmp_path / "p.json"),
            ]
        )
        out, err = capfd.readouterr()
        assert code == 2, name
        assert err.count("\n") == 1 and err.startswith("error: ") and name in err, (name, err)
        assert "Traceback" not in err and "[Fatal]" not in err and out == ""
        assert not marker.exists() and not (tmp_path / "p.json").exists()


@pytest.mark.slow
@pytest.mark.parametrize("name", ["half_file.txt", "huge_num_leaves.txt", "split_index_negative.json", "exec.skops"])
def test_the_issues_crashers_in_a_real_process(files, tmp_path, name):
    """The files that killed the process (SIGSEGV / SIGABRT) or ran code: exit 2, one stderr line, nothing else."""
    import subprocess
    import sys

    tmp, frame, y = files
    marker = tmp_path / "marker"
    (tmp_path / name).write_bytes(_hostile_models(str(marker))[name])
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "engine.cli",
            "qwyc",
            "fit",
            str(tmp_path / name),
            str(tmp / "data.csv"),
            "--alpha",
            "0.01",
            "--policy-out",
            str(tmp_path / "p.json"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.count("\n") == 1 and out.stderr.startswith("error: ") and name in out.stderr
    assert not marker.exists()


def test_a_tampered_policy_exits_2_naming_the_field(files, tmp_path, capfd):
    tmp, frame, y = files
    assert (
        main(
            [
                "qwyc",
                "fit",
                str(tmp / "model.txt"),
                str(tmp / "data.csv"),
                "--alpha",
                "0.01",
                "--policy-out",
                str(tmp_path / "p.json"),
            ]
        )
        == 0
    )
    record = json.loads((tmp_path / "p.json").read_text())
    record["policy"]["order"] = record["policy"]["order"][:3]
    (tmp_path / "bad.json").write_text(json.dumps(record))
    capfd.readouterr()
    assert (
        main(
            [
                "qwyc",
                "apply",
                str(tmp / "model.txt"),
                str(tmp / "data.csv"),
                "--policy",
                str(tmp_path / "bad.json"),
                "--out",
                str(tmp_path / "d.csv"),
            ]
        )
        == 2
    )
    err = capfd.readouterr().err
    assert err.count("\n") == 1 and "policy.order" in err and "bad.json" in err
    assert not (tmp_path / "d.csv").exists()
