"""Early exit at a stated fidelity on new rows, against LightGBM's own early stopping (issue: any fidelity).

UCI Adult (train 32,561 rows to fit, test 16,281 rows to measure), a 500-tree depth-5 LightGBM model
read from its model file. For D = 0.1 %, 0.3 %, 1 %: the policy's test disagreement (exact 95 %
interval) and mean trees, beside the best LightGBM pred_early_stop setting (margin x freq grid) that
reaches the same or lower test disagreement. Then wall clock: our early-exit evaluator against
LightGBM's predict with and without pred_early_stop, on the 16,281 test rows and on single rows; and the
policy applied as users call it (issue 37), side by side with LightGBM's ``pred_early_stop`` at the setting
that matches its test disagreement: the rows as a DataFrame, as a CSV file (read, then applied: ``read_table``
and ``apply_policy`` as ``opstudio qwyc apply`` does, against ``pandas.read_csv`` and LightGBM), and one row
(a mapping for us, a one-row DataFrame and a NumPy row for LightGBM).

    python benchmarks/bench_fidelity.py [--apply-only]
"""

from __future__ import annotations

import os
import platform
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.io import load_public_dataset, read_table  # noqa: E402
from engine.qwyc import apply_policy  # noqa: E402
from engine.qwyc._fidelity import fidelity_curve, fit_fidelity  # noqa: E402
from engine.qwyc._models import load_model  # noqa: E402


def adult_lightgbm():
    import lightgbm

    adult = load_public_dataset("adult")
    cats = {
        c: sorted(adult.x[c].dropna().unique())
        for c in adult.x.columns
        if not pd.api.types.is_numeric_dtype(adult.x[c])
    }

    def encode(x):
        x = x.copy()
        for c, values in cats.items():
            x[c] = pd.Categorical(x[c], categories=values).codes.astype(float)
        return x

    x_train, x_test = encode(adult.x), encode(adult.x_test)
    model = lightgbm.LGBMClassifier(n_estimators=500, max_depth=5, num_leaves=31, verbose=-1).fit(x_train, adult.y)
    return model, x_train, x_test


def best(time_fn, repeats: int = 3) -> float:
    return min(time_fn() for _ in range(repeats))


def timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def matched_setting(curve: pd.DataFrame, d: float) -> tuple[float, int]:
    """LightGBM's (margin, freq) with the fewest trees among those whose test disagreement is at most ours at D."""
    ours = curve[(curve["method"] == "QWYC with fidelity promise") & (curve["promised D"] == d)].iloc[0]
    lgb = curve[curve["method"] == "LightGBM pred_early_stop"]
    peers = lgb[lgb["test disagreement"] <= ours["test disagreement"]]
    peer = (
        peers.sort_values("mean trees (test)").iloc[0] if len(peers) else lgb.sort_values("mean trees (test)").iloc[-1]
    )
    margin, freq = peer["setting"].replace("margin ", "").split(", freq ")
    return float(margin), int(freq)


def apply_as_users_do(model, loaded, policy, x_test: pd.DataFrame, setting: tuple[float, int]) -> None:
    """Our policy applied to a DataFrame, a CSV file and one row, beside LightGBM's pred_early_stop, same run."""
    import tempfile

    booster = model.booster_
    margin, freq = setting
    early = dict(raw_score=True, pred_early_stop=True, pred_early_stop_freq=freq, pred_early_stop_margin=margin)
    path = Path(tempfile.mkdtemp()) / "adult_test.csv"
    x_test.to_csv(path, index=False)
    ours_df = apply_policy(policy, loaded, x_test)
    ours_csv = apply_policy(policy, loaded, read_table(path).frame)
    assert np.array_equal(ours_df[0], ours_csv[0]) and np.array_equal(ours_df[1], ours_csv[1])
    rows = [dict(zip(x_test.columns, r)) for r in x_test.to_numpy()[:200]]
    assert all(apply_policy(policy, loaded, rows[i])[0][0] == ours_df[0][i] for i in range(len(rows)))
    np_rows = x_test.to_numpy()
    print(
        f"\napplied as users call it, {len(x_test):,} Adult test rows; LightGBM pred_early_stop at margin {margin:g}, "
        f"freq {freq} (fewest trees at no more test disagreement than ours at D = 0.3 %); load average "
        f"{os.getloadavg()[0]:.1f}"
    )
    print(f"{'what':58s} {'ours':>10s} {'LightGBM':>10s}")
    pairs = [
        (
            "DataFrame: features + early exit (s)",
            lambda: apply_policy(policy, loaded, x_test),
            lambda: booster.predict(x_test, **early),
        ),
        (
            "CSV file: read + early exit (s)",
            lambda: apply_policy(policy, loaded, read_table(path).frame),
            lambda: booster.predict(pd.read_csv(path), **early),
        ),
    ]
    for name, ours, theirs in pairs:
        print(f"{name:58s} {best(lambda: timed(ours), 5):10.4f} {best(lambda: timed(theirs), 5):10.4f}", flush=True)
    one = 200
    ours_row = best(lambda: timed(lambda: [apply_policy(policy, loaded, r) for r in rows[:one]]), 3) / one * 1e3
    lgb_df = best(lambda: timed(lambda: [booster.predict(x_test.iloc[i : i + 1], **early) for i in range(one)]), 3)
    lgb_np = best(lambda: timed(lambda: [booster.predict(np_rows[i : i + 1], **early) for i in range(one)]), 3)
    print(
        f"{'one row, ms (ours: a mapping; LightGBM: a one-row DataFrame)':58s} {ours_row:10.4f} {lgb_df / one * 1e3:10.4f}"
    )
    print(f"{'one row, ms (LightGBM: a NumPy row)':58s} {'':10s} {lgb_np / one * 1e3:10.4f}", flush=True)


def main():
    print(
        f"# {platform.platform()} | Python {platform.python_version()} | numpy {np.__version__} | "
        f"{os.cpu_count()} cores"
    )
    model, x_train, x_test = adult_lightgbm()
    loaded = load_model(model.booster_.model_to_string().encode(), name="adult.txt")
    f_fit = loaded.ensemble.contributions(loaded.features(x_train))
    f_test = loaded.ensemble.contributions(loaded.features(x_test))
    bias = loaded.ensemble.bias
    if "--apply-only" in sys.argv:
        curve = fidelity_curve(f_fit, f_test, bias=bias, disagreements=(0.003,))
        fitted = fit_fidelity(f_fit, max_disagreement=0.003, bias=bias)
        apply_as_users_do(model, loaded, fitted.policy, x_test, matched_setting(curve, 0.003))
        return
    curve = fidelity_curve(
        f_fit,
        f_test,
        bias=bias,
        disagreements=(0.0005, 0.001, 0.003, 0.01, 0.02),
        lightgbm_margins=(1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 5.0, 6.0, 8.0),
        lightgbm_freqs=(1, 5, 10, 20),
    )
    qwyc = curve[curve["method"] == "QWYC with fidelity promise"]
    lgb = curve[curve["method"] == "LightGBM pred_early_stop"]
    print(
        f"\n{'D':>6s} {'fit s':>6s} {'trees':>7s} {'test disagree':>14s} {'95 % interval':>18s} "
        f"{'best LightGBM at <= that':>26s} {'its trees':>9s}"
    )
    for d in (0.001, 0.003, 0.01):
        fit_s = timed(lambda: fit_fidelity(f_fit, max_disagreement=d, bias=bias))
        row = qwyc[qwyc["promised D"] == d].iloc[0]
        peers = lgb[lgb["test disagreement"] <= row["test disagreement"]]
        peer = peers.sort_values("mean trees (test)").iloc[0] if len(peers) else None
        print(
            f"{100 * d:5.2f}% {fit_s:6.1f} {row['mean trees (test)']:7.1f} {100 * row['test disagreement']:13.3f}% "
            f"[{100 * row['interval low']:6.3f}, {100 * row['interval high']:6.3f}] % "
            f"{(peer['setting'] if peer is not None else 'none'):>26s} "
            f"{(peer['mean trees (test)'] if peer is not None else float('nan')):9.1f}",
            flush=True,
        )
    print("\nfull curve:")
    print(curve.to_string(index=False))

    fitted = fit_fidelity(f_fit, max_disagreement=0.003, bias=bias)
    x = loaded.features(x_test)
    booster = model.booster_
    rows = {
        "our early exit (D = 0.3 %)": lambda xs: fitted.policy.predict_lazy(loaded.ensemble, xs),
        "our traversal, all trees": lambda xs: loaded.ensemble.decision_function(xs),
        "LightGBM predict, all trees": lambda xs: booster.predict(xs, raw_score=True),
        "LightGBM pred_early_stop (margin 3, freq 10)": lambda xs: booster.predict(
            xs, raw_score=True, pred_early_stop=True, pred_early_stop_freq=10, pred_early_stop_margin=3.0
        ),
    }
    print(f"\n{'evaluator':46s} {'16,281 rows s':>14s} {'one row ms':>11s}")
    for name, fn in rows.items():
        batch = best(lambda: timed(lambda: fn(x)))
        single = best(lambda: timed(lambda: [fn(x[i : i + 1]) for i in range(200)])) / 200 * 1000
        print(f"{name:46s} {batch:14.3f} {single:11.3f}", flush=True)
    apply_as_users_do(model, loaded, fitted.policy, x_test, matched_setting(curve, 0.003))


if __name__ == "__main__":
    main()
