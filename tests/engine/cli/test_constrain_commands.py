"""``opstudio constrain`` / ``predict`` on a mixed-type table with missing labels."""

import json

import numpy as np
import pandas as pd
import pytest

from engine.cli import main


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    rng = np.random.default_rng(7)
    n = 1200
    sex = rng.choice(["F", "M"], n, p=[0.35, 0.65])
    latent = rng.normal(size=n) + 0.9 * (sex == "M")
    age = rng.integers(18, 70, n).astype(float)
    age[rng.random(n) < 0.05] = np.nan
    label = np.where(latent + rng.normal(size=n) > 0.5, "yes", "no").astype(object)
    label[rng.random(n) < 0.1] = ""  # unlabelled rows
    frame = pd.DataFrame(
        {
            "sex": sex,
            "age": age,
            "job": rng.choice(["clerk", "tech", "sales", None], n),
            "income": latent.round(3),
            "outcome": label,
            "deployed": (latent > 0.4).astype(int),
            "row_id": np.arange(n),
        }
    )
    path = tmp_path_factory.mktemp("constrain") / "table.csv"
    frame.to_csv(path, index=False)
    return path, frame


def test_demographic_parity_model_and_predictions_round_trip(table, tmp_path, capsys):
    path, frame = table
    args = [
        "constrain",
        str(path),
        "--label",
        "outcome",
        "--group",
        "sex=F",
        "--demographic-parity",
        "0.8",
        "--exclude",
        "deployed",
        "row_id",
        "--test-fraction",
        "0",
        "--model-out",
        str(tmp_path / "m.json"),
        "--predictions-out",
        str(tmp_path / "pred.csv"),
    ]
    assert main(args) == 0
    summary = json.loads(capsys.readouterr().out)
    pred = pd.read_csv(tmp_path / "pred.csv")
    assert list(pred.columns) == ["score", "decision"] and len(pred) == len(frame)
    d = pred["decision"].to_numpy()
    female = frame["sex"].to_numpy() == "F"
    assert d[female].mean() >= 0.8 * d[~female].mean()  # the contract, on every row (test fraction 0)
    assert summary["train"]["demographic_parity_ratio"] == pytest.approx(d[female].mean() / d[~female].mean())
    record = json.loads((tmp_path / "m.json").read_text())
    assert {"feature_names", "preprocessing", "coefficients", "intercept", "constraints", "rates"} <= set(record)
    assert not any(name.startswith(("outcome", "deployed", "row_id")) for name in record["feature_names"])
    assert "job=(missing)" in record["feature_names"]
    # predict with the saved model reproduces constrain's decisions exactly, columns in any order
    frame[frame.columns[::-1]].assign(extra="x").to_csv(tmp_path / "again.csv", index=False)
    assert (
        main(["predict", str(tmp_path / "m.json"), str(tmp_path / "again.csv"), "--out", str(tmp_path / "p2.csv")]) == 0
    )
    again = pd.read_csv(tmp_path / "p2.csv")
    np.testing.assert_array_equal(again["decision"], pred["decision"])
    np.testing.assert_allclose(again["score"], pred["score"])


def test_churn_against_the_deployed_model(table, tmp_path, capsys):
    path, frame = table
    assert (
        main(
            [
                "constrain",
                str(path),
                "--label",
                "outcome",
                "--max-churn",
                "0.03",
                "--deployed",
                "deployed",
                "--exclude",
                "row_id",
                "--model-out",
                str(tmp_path / "c.json"),
                "--predictions-out",
                str(tmp_path / "c.csv"),
            ]
        )
        == 0
    )
    summary = json.loads(capsys.readouterr().out)
    assert summary["train"]["churn"] <= 0.03 + 1e-12
    assert summary["train"]["constraints_unmet_by_decisions"] == []


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--group", "sex"], "COL=VALUE"),
        (["--group", "sex=X", "--demographic-parity", "0.8"], "protected group"),
        (["--max-churn", "0.1"], "--deployed COL"),
        (["--demographic-parity", "0.8"], "--group COL=VALUE"),
    ],
)
def test_errors_exit_2(table, tmp_path, capsys, extra, message):
    path, _ = table
    code = main(
        [
            "constrain",
            str(path),
            "--label",
            "outcome",
            *extra,
            "--model-out",
            str(tmp_path / "x.json"),
            "--predictions-out",
            str(tmp_path / "x.csv"),
        ]
    )
    assert code == 2 and message in capsys.readouterr().err


def test_predict_needs_the_models_columns(table, tmp_path, capsys):
    path, frame = table
    main(
        [
            "constrain",
            str(path),
            "--label",
            "outcome",
            "--exclude",
            "deployed",
            "row_id",
            "--model-out",
            str(tmp_path / "m.json"),
            "--predictions-out",
            str(tmp_path / "p.csv"),
        ]
    )
    frame.drop(columns=["job"]).to_csv(tmp_path / "nojob.csv", index=False)
    capsys.readouterr()
    assert (
        main(["predict", str(tmp_path / "m.json"), str(tmp_path / "nojob.csv"), "--out", str(tmp_path / "o.csv")]) == 2
    )
    assert "no column 'job'" in capsys.readouterr().err
    assert main(["predict", str(path), str(path), "--out", str(tmp_path / "o.csv")]) == 2


@pytest.fixture(scope="module")
def model_file(table, tmp_path_factory):
    path, _ = table
    folder = tmp_path_factory.mktemp("model")
    assert (
        main(
            [
                "constrain",
                str(path),
                "--label",
                "outcome",
                "--exclude",
                "deployed",
                "row_id",
                "--model-out",
                str(folder / "m.json"),
                "--predictions-out",
                str(folder / "p.csv"),
            ]
        )
        == 0
    )
    return json.loads((folder / "m.json").read_text())


def one_line_error(capsys) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: ") and "Traceback" not in err
    return err


@pytest.mark.parametrize(
    "edit, field",
    [
        (lambda r: r["coefficients"].__setitem__(0, 1e300), "'coefficients[0]'"),
        (lambda r: r.__setitem__("coefficients", r["coefficients"][:-1]), "'coefficients'"),
        (lambda r: r["preprocessing"]["numeric"][0].__setitem__("scale", 0.0), "'preprocessing.numeric[0].scale'"),
        (lambda r: r["preprocessing"]["numeric"][0].pop("mean"), "'preprocessing.numeric[0].mean' is missing"),
        (
            lambda r: r["preprocessing"]["categorical"][0].__setitem__("categories", "FM"),
            "'preprocessing.categorical[0].categories' must be a list",
        ),
        (lambda r: r.pop("preprocessing"), "'preprocessing' is missing"),
        (lambda r: r.__setitem__("intercept", {"value": 1}), "'intercept' must be a number"),
    ],
)
def test_predict_with_a_broken_model_file_exits_2_naming_the_field(table, model_file, tmp_path, capsys, edit, field):
    record = json.loads(json.dumps(model_file))
    edit(record)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(record))
    path, _ = table
    assert main(["predict", str(bad), str(path), "--out", str(tmp_path / "o.csv")]) == 2
    err = one_line_error(capsys)
    assert "model file 'bad.json'" in err and field in err
    assert not (tmp_path / "o.csv").exists()


@pytest.mark.parametrize(
    "text, says",
    [
        ('{"intercept": NaN}', "NaN is not a JSON number"),
        ("[" * 5000 + "]" * 5000, "nests objects or arrays 5000 deep"),
    ],
)
def test_predict_with_a_file_that_is_not_json_exits_2(table, tmp_path, capsys, text, says):
    (tmp_path / "bad.json").write_text(text)
    assert main(["predict", str(tmp_path / "bad.json"), str(table[0]), "--out", str(tmp_path / "o.csv")]) == 2
    assert says in one_line_error(capsys)


def test_constrain_with_a_30000_category_column_exits_2_naming_it(tmp_path, capsys):
    n = 30_000
    rng = np.random.default_rng(1)
    pd.DataFrame(
        {"account": [f"a{i}" for i in range(n)], "x": rng.normal(size=n), "label": rng.integers(0, 2, n)}
    ).to_csv(tmp_path / "wide.csv", index=False)
    assert (
        main(
            [
                "constrain",
                str(tmp_path / "wide.csv"),
                "--label",
                "label",
                "--test-fraction",
                "0",
                "--model-out",
                str(tmp_path / "m.json"),
                "--predictions-out",
                str(tmp_path / "p.csv"),
            ]
        )
        == 2
    )
    err = one_line_error(capsys)
    assert "'account' has 30,000 distinct values" in err and "--exclude account" in err


def test_a_one_line_table_over_the_csv_field_limit_exits_2(model_file, tmp_path, capsys):
    (tmp_path / "m.json").write_text(json.dumps(model_file))
    (tmp_path / "line.csv").write_bytes(b"q" * (1 << 20))
    out = str(tmp_path / "o.csv")
    assert main(["predict", str(tmp_path / "m.json"), str(tmp_path / "line.csv"), "--out", out]) == 2
    assert "'line.csv': line 1" in one_line_error(capsys)
