"""Model files for early exit: exact per-tree contributions per format, and `qwyc fit` (issue: own models).

Targets: contributions of a 500-tree model on 50,000 rows <= 5 s per format; QWYC* fit for
300 trees x 10,000 rows <= 10 s. Reference in the same run: each library's own raw-margin
prediction of all trees (compiled C++), and the maximum difference from it.

    python benchmarks/bench_models.py
"""

from __future__ import annotations

import os
import platform
import sys
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.measure import timed  # noqa: E402
from engine.qwyc import fit_qwyc  # noqa: E402
from engine.qwyc._models import load_model  # noqa: E402


def data(n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 10))
    x[rng.random(x.shape) < 0.05] = np.nan
    y = np.nan_to_num(x[:, 0]) + np.nan_to_num(x[:, 1]) * np.nan_to_num(x[:, 2]) + rng.normal(size=n) > 0
    return pd.DataFrame(x, columns=[f"x{j}" for j in range(10)]), y.astype(int)


def models(frame, y, trees: int):
    import lightgbm
    import skops.io
    import xgboost
    from sklearn.ensemble import HistGradientBoostingClassifier

    lgb = lightgbm.LGBMClassifier(n_estimators=trees, max_depth=5, num_leaves=31, verbose=-1).fit(frame, y)
    xgb = xgboost.XGBClassifier(n_estimators=trees, max_depth=5).fit(frame, y)
    hgb = HistGradientBoostingClassifier(max_iter=trees, max_depth=5, early_stopping=False).fit(frame, y)
    return {
        "LightGBM text": (lgb.booster_.model_to_string().encode(), lambda f: lgb.booster_.predict(f, raw_score=True)),
        "XGBoost UBJSON": (
            bytes(xgb.get_booster().save_raw("ubj")),
            lambda f: xgb.get_booster().predict(xgboost.DMatrix(f), output_margin=True),
        ),
        "skops HistGradientBoosting": (skops.io.dumps(hgb), hgb.decision_function),
    }


def main():
    print(
        f"# {platform.platform()} | Python {platform.python_version()} | numpy {np.__version__} | "
        f"{os.cpu_count()} cores"
    )
    frame, y = data(50_000)
    print(
        f"{'format':28s} {'trees':>6s} {'rows':>7s} {'load s':>7s} {'F s':>7s} {'peak MB':>8s} "
        f"{'library margin s':>17s} {'max |diff|':>11s}"
    )
    for name, (raw, margin) in models(frame, y, 500).items():
        model, load_s, _ = timed(lambda: load_model(raw, name=name))
        x = model.features(frame)
        f, f_s, peak = timed(lambda: model.ensemble.contributions(x))
        ref, ref_s, _ = timed(lambda: margin(frame))
        diff = np.abs(model.ensemble.bias + f.sum(axis=1) - ref).max()
        print(
            f"{name:28s} {model.n_trees:6d} {len(frame):7,} {load_s:7.2f} {f_s:7.2f} {peak:8.0f} {ref_s:17.3f} "
            f"{diff:11.1e}",
            flush=True,
        )
    small, y_small = data(10_000, seed=1)
    raw, _ = models(small, y_small, 300)["LightGBM text"]
    model = load_model(raw)
    f = model.ensemble.contributions(model.features(small))
    policy, fit_s, _ = timed(lambda: fit_qwyc(f, alpha=0.005, bias=model.ensemble.bias))
    stats = policy.evaluate(f)
    print(
        f"\nQWYC* fit, 300 trees x 10,000 rows, alpha 0.5 %: {fit_s:.2f} s; mean trees {stats['mean_models']:.1f}; "
        f"disagreement {stats['disagreement_pct']:.2f} %"
    )


if __name__ == "__main__":
    main()
