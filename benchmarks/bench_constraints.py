"""Dataset-constrained training on UCI Adult (Goh et al. 2016).

    python benchmarks/bench_constraints.py
    python benchmarks/bench_constraints.py --page [REPEATS]   # the page's sweep buttons (AppTest wall time)

Targets: one constrained fit on full Adult train (one-hot, ~100 features) under 30 s; a sweep of 8
targets under 3 minutes. Compared with fairlearn's ExponentiatedGradient (demographic parity) on the
same split, timed in the same run. ``--page``: the Constrained training page on the Adult sample, wall
time from a click on "Fairness sweep" / "Churn sweep" to the rendered result (Streamlit AppTest, the
first click loads Adult), REPEATS times each (default 2), with the load average (issue 25: <= 8 s / <= 3 s).
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

from engine.constraints import DemographicParity, adult_data, churn_sweep, fairness_sweep, fit_constrained
from engine.constraints._rates import demographic_parity_ratio


def page(repeats: int = 2) -> None:
    """Wall time per sweep button on the Constrained training page (AppTest), with the load average."""
    from streamlit.testing.v1 import AppTest

    from tests.apptest_setup import legacy_page_folders_off

    legacy_page_folders_off()  # AppTest runs pages as the dashboard's server does

    root = Path(__file__).resolve().parent.parent
    at = AppTest.from_file(str(root / "app.py"), default_timeout=600)
    at.run()
    at.switch_page("pages/constraints.py").run()
    assert not at.exception, at.exception
    print(f"# {platform.platform()} | {os.cpu_count()} cores | code from {root}")
    for i in range(repeats):
        for key, name in (
            ("run_fair_sweep", "fairness sweep (8 kappa)"),
            ("run_churn_sweep", "churn sweep (5 targets)"),
        ):
            load = os.getloadavg()[0]
            t0 = time.perf_counter()
            at.button(key=key).click().run()
            seconds = time.perf_counter() - t0
            assert not at.exception and not at.error, (at.exception, at.error)
            print(
                f"{name}, click {i + 1}: {seconds:.2f} s (load average {load:.1f} -> {os.getloadavg()[0]:.1f})",
                flush=True,
            )


def main():
    print(
        f"# {platform.platform()} | Python {platform.python_version()} | numpy {np.__version__} | "
        f"{os.cpu_count()} cores"
    )
    data = adult_data()
    print(f"Adult: train {data.x_train.shape}, test {data.x_test.shape}")
    t0 = time.perf_counter()
    model = fit_constrained(data.x_train, data.y_train, [DemographicParity(data.female_train, ~data.female_train, 0.8)])
    fit_s = time.perf_counter() - t0
    d_tr, d_te = model.predict(data.x_train), model.predict(data.x_test)
    print(
        f"one fit (kappa = 0.8): {fit_s:.1f} s (target < 30 s), {len(model.trace_) - 1} MM iterations, "
        f"{model.trace_[-1]['svm_solves']} inner solves; train error {np.mean(d_tr != data.y_train):.4f}, "
        f"ratio {demographic_parity_ratio(d_tr, data.female_train, ~data.female_train):.3f}; test error "
        f"{np.mean(d_te != data.y_test):.4f}, ratio {demographic_parity_ratio(d_te, data.female_test, ~data.female_test):.3f}"
    )

    t0 = time.perf_counter()
    sweep = fairness_sweep(data)
    sweep_s = time.perf_counter() - t0
    print(f"\nfairness sweep, 8 values of kappa: {sweep_s:.0f} s (target < 180 s)")
    with pd.option_context("display.width", 200, "display.float_format", "{:.4f}".format):
        print(sweep.to_string(index=False))

    try:
        from fairlearn.reductions import DemographicParity as FairlearnDP
        from fairlearn.reductions import ExponentiatedGradient
        from sklearn.linear_model import LogisticRegression
        from sklearn.preprocessing import StandardScaler

        scaler = StandardScaler().fit(data.x_train)
        xs_tr, xs_te = scaler.transform(data.x_train), scaler.transform(data.x_test)
        t0 = time.perf_counter()
        eg = ExponentiatedGradient(LogisticRegression(max_iter=1000), constraints=FairlearnDP(difference_bound=0.01))
        eg.fit(xs_tr, data.y_train, sensitive_features=data.female_train)
        eg_s = time.perf_counter() - t0
        p_tr = eg.predict(xs_tr, random_state=0)
        p_te = eg.predict(xs_te, random_state=0)
        print(
            f"\nfairlearn ExponentiatedGradient (DP difference <= 0.01, logistic regression): {eg_s:.1f} s; "
            f"train error {np.mean(p_tr != data.y_train):.4f}, ratio "
            f"{demographic_parity_ratio(p_tr, data.female_train, ~data.female_train):.3f}; test error "
            f"{np.mean(p_te != data.y_test):.4f}, ratio "
            f"{demographic_parity_ratio(p_te, data.female_test, ~data.female_test):.3f}"
        )
    except ImportError:
        print("\nfairlearn not installed: comparison skipped")

    t0 = time.perf_counter()
    churn = churn_sweep(data)
    print(
        f"\nchurn sweep, 5 targets: {time.perf_counter() - t0:.0f} s; deployed recall "
        f"{churn.attrs['deployed_recall']:.3f}, deployed test error {churn.attrs['deployed_test_error']:.4f}"
    )
    with pd.option_context("display.width", 200, "display.float_format", "{:.4f}".format):
        print(churn.to_string(index=False))


if __name__ == "__main__":
    if "--page" in sys.argv:
        page(int(sys.argv[-1]) if sys.argv[-1].isdigit() else 2)
    else:
        main()
