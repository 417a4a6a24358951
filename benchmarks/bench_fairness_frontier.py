"""Constrained training at interactive speed, against fairlearn in the same run (UCI Adult).

    python benchmarks/bench_fairness_frontier.py

Targets: demographic parity kappa = 0.8 <= 2 s per fit (median of 3), no slower than fairlearn's
ExponentiatedGradient, train ratio >= 0.79, test error <= 0.1625; churn <= 3 % <= 2 s; three
constraints <= 5 s; a warm-started sweep of 8 kappa <= 8 s. The frontier: our (test ratio, test error)
for kappa 0.5 ... 1.0 against ExponentiatedGradient (ratio_bound sweep) and ThresholdOptimizer
(demographic parity, tolerance sweep), our error interpolated at each of their test ratios.
Robustness cases on data made here (not Adult): the larger, lower-rate protected group, and tight
churn against a deployed logistic regression.
"""

from __future__ import annotations

import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.measure import timed  # noqa: E402
from engine.constraints import DemographicParity, MaxChurn, MinRecall, adult_data, fit_constrained
from engine.constraints._rates import churn_rate, demographic_parity_ratio
from engine.constraints._solver import linear_svm

KAPPAS = (0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 1.0)


def ratio(decisions, female) -> float:
    return demographic_parity_ratio(decisions, female, ~female)


def median_time(fn, repeats=3):
    times, value = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - t0)
    return value, statistics.median(times)


def ours_at(data, kappa, warm=None):
    return fit_constrained(
        data.x_train, data.y_train, [DemographicParity(data.female_train, ~data.female_train, kappa)], warm_start=warm
    )


def headline(data, scaled):
    from fairlearn.reductions import DemographicParity as FairlearnDP
    from fairlearn.reductions import ExponentiatedGradient
    from sklearn.linear_model import LogisticRegression

    print("\n## Demographic parity kappa = 0.8 (median of 3 fits)")
    print("| method | fit s | peak MB | train ratio | test ratio | test error |\n|---|---|---|---|---|---|")
    model, seconds = median_time(lambda: ours_at(data, 0.8))
    peak = timed(lambda: ours_at(data, 0.8))[2]
    d_tr, d_te = model.predict(data.x_train), model.predict(data.x_test)
    print(
        f"| fit_constrained (deterministic) | {seconds:.2f} | {peak:.0f} | {ratio(d_tr, data.female_train):.3f} | "
        f"{ratio(d_te, data.female_test):.3f} | {np.mean(d_te != data.y_test):.4f} |"
    )
    for bound in (0.9, 0.8):

        def fit(bound=bound):
            eg = ExponentiatedGradient(LogisticRegression(max_iter=1000), constraints=FairlearnDP(ratio_bound=bound))
            eg.fit(scaled[0], data.y_train, sensitive_features=data.female_train)
            return eg

        eg, seconds = median_time(fit)
        p_tr, p_te = eg.predict(scaled[0], random_state=0), eg.predict(scaled[1], random_state=0)
        print(
            f"| fairlearn ExponentiatedGradient(LR, ratio_bound={bound}) | {seconds:.2f} | - | "
            f"{ratio(p_tr, data.female_train):.3f} | {ratio(p_te, data.female_test):.3f} | "
            f"{np.mean(p_te != data.y_test):.4f} |"
        )


def frontier(data, scaled):
    from fairlearn.postprocessing import ThresholdOptimizer
    from fairlearn.reductions import DemographicParity as FairlearnDP
    from fairlearn.reductions import ExponentiatedGradient
    from sklearn.linear_model import LogisticRegression

    print("\n## Frontier: test ratio and test error")
    for warm in (True, False):  # the cold sweep (each kappa fitted alone) is the frontier compared below
        t0 = time.perf_counter()
        ours, model = [], None
        for kappa in KAPPAS:
            model = ours_at(data, kappa, model if warm else None)
            d_te = model.predict(data.x_test)
            ours.append((kappa, ratio(d_te, data.female_test), float(np.mean(d_te != data.y_test)), model.fit_seconds))
        sweep_s = time.perf_counter() - t0
        print(
            f"our {'warm-started' if warm else 'cold'} sweep of {len(KAPPAS)} kappa: {sweep_s:.1f} s; test error "
            + " ".join(f"{e:.4f}@{r:.3f}" for _, r, e, _ in ours)
        )
    theirs = []
    for bound in KAPPAS:
        t1 = time.perf_counter()
        eg = ExponentiatedGradient(LogisticRegression(max_iter=1000), constraints=FairlearnDP(ratio_bound=bound))
        eg.fit(scaled[0], data.y_train, sensitive_features=data.female_train)
        p = eg.predict(scaled[1], random_state=0)
        theirs.append(
            (
                "ExponentiatedGradient ratio_bound",
                bound,
                ratio(p, data.female_test),
                float(np.mean(p != data.y_test)),
                time.perf_counter() - t1,
            )
        )
    logistic = LogisticRegression(max_iter=1000).fit(scaled[0], data.y_train)
    for tol in (0.0, 0.02, 0.04, 0.06, 0.08, 0.1):
        t1 = time.perf_counter()
        post = ThresholdOptimizer(
            estimator=logistic, constraints="demographic_parity", prefit=True, predict_method="predict_proba", tol=tol
        )
        post.fit(scaled[0], data.y_train, sensitive_features=data.female_train)
        p = post.predict(scaled[1], sensitive_features=data.female_test, random_state=0)
        theirs.append(
            (
                "ThresholdOptimizer tol",
                tol,
                ratio(p, data.female_test),
                float(np.mean(p != data.y_test)),
                time.perf_counter() - t1,
            )
        )
    print("| ours: kappa | test ratio | test error | fit s |\n|---|---|---|---|")
    for kappa, r, e, s in ours:
        print(f"| {kappa} | {r:.3f} | {e:.4f} | {s:.2f} |")
    order = np.argsort([r for _, r, _, _ in ours])
    ours_r = np.array([ours[i][1] for i in order])
    ours_e = np.array([ours[i][2] for i in order])
    print(
        "\n| fairlearn | setting | test ratio | test error | fit s | ours at that ratio (interpolated) | "
        "ours - theirs |\n|---|---|---|---|---|---|---|"
    )
    for name, setting, r, e, s in theirs:
        inside = ours_r[0] <= r <= ours_r[-1]
        mine = float(np.interp(r, ours_r, ours_e)) if inside else float("nan")
        diff = f"{mine - e:+.4f}" if inside else "outside our range"
        print(f"| {name} | {setting} | {r:.3f} | {e:.4f} | {s:.2f} | {mine:.4f} | {diff} |")
    return sweep_s


def churn_cases(data):
    rng = np.random.default_rng(0)
    part = rng.random(data.y_train.size) < 0.1
    few = slice(0, 6)
    deployed = linear_svm(data.x_train[part][:, few], data.y_train[part])
    dep = deployed.predict(data.x_train[:, few])
    recall = float(dep[data.y_train == 1].mean())
    cases = {
        "churn <= 3 %": [MaxChurn(dep, 0.03)],
        "demographic parity 0.8 + churn <= 5 % + recall >= deployed": [
            DemographicParity(data.female_train, ~data.female_train, 0.8),
            MaxChurn(dep, 0.05),
            MinRecall(recall),
        ],
    }
    print("\n## Churn and several constraints (median of 3 fits)")
    print("| constraints | fit s | train churn | test error | train recall |\n|---|---|---|---|---|")
    for name, constraints in cases.items():
        model, seconds = median_time(lambda c=constraints: fit_constrained(data.x_train, data.y_train, c))
        d = model.predict(data.x_train)
        print(
            f"| {name} | {seconds:.2f} | {churn_rate(d, dep):.4f} | "
            f"{np.mean(model.predict(data.x_test) != data.y_test):.4f} | {d[data.y_train == 1].mean():.3f} |"
        )


def robustness():
    from tests.engine.constraints._test_solver import deployed_logistic_regression, minority_majority

    print("\n## Robustness on data made in the tests")
    x, y, protected = minority_majority()
    model = fit_constrained(x, y, [DemographicParity(protected, ~protected, 0.8)])
    d = model.predict(x)
    print(
        f"larger, lower-rate protected group, kappa = 0.8: flags {d.mean():.1%}, error {np.mean(d != y):.4f} "
        f"(flagging nobody: {y.mean():.4f}), deterministic ratio {ratio(d, protected):.3f}, "
        f"{model.fit_seconds:.2f} s"
    )
    x, y, deployed = deployed_logistic_regression()
    for target in (0.05, 0.01):
        model = fit_constrained(x, y, [MaxChurn(deployed, target)])
        d = model.predict(x)
        print(
            f"churn <= {target:.0%} against a deployed logistic regression on 3 of 8 features: churn "
            f"{churn_rate(d, deployed):.4f}, error {np.mean(d != y):.4f} (deployed {np.mean(deployed != y):.4f}), "
            f"{model.fit_seconds:.2f} s"
        )


def main():
    from sklearn.preprocessing import StandardScaler

    print(
        f"# {platform.platform()} | Python {platform.python_version()} | numpy {np.__version__} | "
        f"{os.cpu_count()} cores"
    )
    data = adult_data()
    scaler = StandardScaler().fit(data.x_train)
    scaled = (scaler.transform(data.x_train), scaler.transform(data.x_test))
    print(f"Adult: train {data.x_train.shape}, test {data.x_test.shape}")
    headline(data, scaled)
    frontier(data, scaled)
    churn_cases(data)
    robustness()


if __name__ == "__main__":
    main()
