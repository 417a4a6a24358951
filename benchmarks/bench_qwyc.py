"""QWYC on UCI Adult with HistGradientBoostingClassifier(max_iter=500, max_depth=5, early_stopping=False).

    python benchmarks/bench_qwyc.py              # fit time, trade-off curves, wall clock (scikit-learn model)
    python benchmarks/bench_qwyc.py --evaluator  # compiled early exit against LightGBM's C++ predict
    python benchmarks/bench_qwyc.py --fit        # QWYC* fit against the compiled scan of commit 178950a
    python benchmarks/bench_qwyc.py --page       # the Early exit page's engine work, this tree against 178950a
    python benchmarks/bench_qwyc.py --threads    # QWYC* fit and contributions in one thread against all cores
    python benchmarks/bench_qwyc.py --start      # QWYC* fits at neighbouring α with and without a shared qwyc_start

``--fit``: the QWYC* fit on the 32,561 Adult training rows (500 trees, depth 5) at several
settings, and in the same run the implementation of an earlier commit (``--fit 113aa85``: the
NumPy one; default 178950a: the unblocked compiled scan; read with ``git show``), with wall and
CPU seconds, the load average, and a check that both give the same order, thresholds and
disagreements.

``--evaluator``: a 500-tree depth-5 LightGBM model on Adult read from its model file, the D = 0.3 %
promise policy, and in the same run, one thread on both sides, batch (16,281 test rows) and single
rows: our compiled early exit, our compiled traversal of all trees, LightGBM ``predict`` (all trees)
and LightGBM ``pred_early_stop`` at the (margin, freq) with the fewest trees whose test disagreement is
at most ours (matched disagreement).

Targets: QWYC* fit on the 32,561 training rows at alpha = 0.5 % under 20 s; on
the 16,281 test rows at most 60 of 500 trees on average with at most 1 %
disagreement; QWYC* at or below every fixed order and Fan et al. along the
trade-off curve. Also the measured wall-clock speed of the early-exit evaluator.
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

from engine.qwyc import fit_qwyc, time_early_exit, tradeoff_curves, train_adult_gbt  # noqa: E402


def main():
    print(
        f"# {platform.platform()} | Python {platform.python_version()} | numpy {np.__version__} | "
        f"{os.cpu_count()} cores"
    )
    t0 = time.perf_counter()
    trained = train_adult_gbt()
    f_fit = trained.ensemble.contributions(trained.x_train)
    f_test = trained.ensemble.contributions(trained.x_test)
    print(
        f"trained 500 trees in {trained.fit_seconds:.1f} s; F extracted in {time.perf_counter() - t0 - trained.fit_seconds:.1f} s; "
        f"reconstruction error {np.abs(trained.ensemble.bias + f_test.sum(1) - trained.model.decision_function(trained.x_test)).max():.1e}"
    )
    bias = trained.ensemble.bias
    policy = fit_qwyc(f_fit, alpha=0.005, bias=bias)
    fit_m = policy.evaluate(f_fit, trained.y_train)
    test_m = policy.evaluate(f_test, trained.y_test)
    print(
        f"\nQWYC* alpha=0.5 %: fit time {policy.fit_seconds:.1f} s (target < 20 s); test mean trees "
        f"{test_m['mean_models']:.1f} (target <= 60); test disagreement {test_m['disagreement_pct']:.2f} % "
        f"(target <= 1 %); fit disagreement {fit_m['disagreement_pct']:.3f} %; test accuracy "
        f"{test_m['accuracy']:.4f} (full {test_m['full_accuracy']:.4f})"
    )
    timing = time_early_exit(trained.ensemble, policy, trained.x_test, reference=trained.model.decision_function)
    print(
        f"wall clock on {timing.rows:,} test rows: all trees (this engine) {timing.full_seconds * 1e3:.0f} ms, "
        f"early exit {timing.early_seconds * 1e3:.0f} ms ({timing.speedup:.1f}x), scikit-learn decision_function "
        f"{timing.reference_seconds * 1e3:.0f} ms ({timing.reference_seconds / timing.early_seconds:.1f}x); "
        f"decisions identical to the policy: {timing.decisions_match_policy}"
    )
    t0 = time.perf_counter()
    table = tradeoff_curves(
        f_fit,
        f_test,
        labels_fit=trained.y_train,
        labels_test=trained.y_test,
        bias=bias,
        alphas=(0.0, 0.001, 0.0025, 0.005, 0.01, 0.02),
    )
    print(f"\ntrade-off sweep in {time.perf_counter() - t0:.0f} s")
    cols = [
        "method",
        "parameter",
        "fit_mean_models",
        "fit_disagreement_pct",
        "test_mean_models",
        "test_disagreement_pct",
        "test_accuracy",
        "pareto",
    ]
    with pd.option_context("display.width", 200, "display.max_rows", 200, "display.float_format", "{:.3f}".format):
        print(table[cols].to_string(index=False))
    # where is QWYC* not on or below the other curves? compare inside the disagreement range QWYC* covers
    q = table[table.method == "qwyc"].sort_values("test_disagreement_pct")
    lo, hi = q.test_disagreement_pct.min(), q.test_disagreement_pct.max()
    print(f"\nQWYC*'s test disagreement spans {lo:.2f} % .. {hi:.2f} % over the alpha sweep.")
    beaten, outside = [], []
    for _, row in table[table.method != "qwyc"].iterrows():
        if not lo <= row.test_disagreement_pct <= hi:
            outside.append(row)
            continue
        # fewest trees QWYC* needs at no more than this disagreement
        qm = q[q.test_disagreement_pct <= row.test_disagreement_pct + 1e-12].test_mean_models.min()
        if row.test_mean_models < qm - 1e-9:
            beaten.append((row.method, row.parameter, row.test_mean_models, row.test_disagreement_pct, qm))
    print("points of other methods inside that span with fewer trees than QWYC* at no more disagreement:")
    for w in beaten:
        print(f"  {w[0]} ({w[1]}): {w[2]:.1f} trees at {w[3]:.2f} %, QWYC* needs {w[4]:.1f}")
    if not beaten:
        print("  none")
    print(
        f"points outside the span (not comparable along the curve): {len(outside)}; those below {lo:.2f} % need "
        f"at least {min([r.test_mean_models for r in outside if r.test_disagreement_pct < lo] or [np.nan]):.0f} trees"
    )


def best_of(fn, repeats: int = 5) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def evaluator_race(single_rows: int = 1000):
    os.environ.setdefault("NUMBA_NUM_THREADS", "1")
    from bench_fidelity import adult_lightgbm

    from engine.qwyc import load_model
    from engine.qwyc._evaluator import flatten_ensemble
    from engine.qwyc._fidelity import fit_fidelity
    from engine.qwyc._policy import lightgbm_early_stop_policy

    print(
        f"# {platform.platform()} | Python {platform.python_version()} | numpy {np.__version__} | "
        f"{os.cpu_count()} cores | load average {os.getloadavg()[0]:.1f} (shared machine: compare rows of one run)"
    )
    model, x_train, x_test = adult_lightgbm()
    booster = model.booster_
    loaded = load_model(booster.model_to_string().encode(), name="adult.txt")
    x_fit, x = loaded.features(x_train), np.ascontiguousarray(loaded.features(x_test))
    flat = flatten_ensemble(loaded.ensemble)
    f_fit, f_test = loaded.ensemble.contributions(x_fit), loaded.ensemble.contributions(x)
    bias, t_count = loaded.ensemble.bias, loaded.n_trees
    full = bias + f_test.sum(axis=1) >= 0
    t0 = time.perf_counter()
    policy = fit_fidelity(f_fit, max_disagreement=0.003, bias=bias).policy
    fit_s = time.perf_counter() - t0
    ours_dec, ours_trees = policy.predict(f_test)
    ours_dis = float(np.mean(ours_dec != full))
    grid = []
    for margin in (0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 5.0, 6.0, 8.0):
        for freq in (1, 2, 5, 10, 20):
            d, n = lightgbm_early_stop_policy(t_count, freq, margin, bias=bias).predict(f_test)
            grid.append((float(np.mean(d != full)), float(n.mean()), margin, freq))
    matched = min((g for g in grid if g[0] <= ours_dis), key=lambda g: g[1], default=max(grid, key=lambda g: g[1]))
    print(
        f"policy D = 0.3 % fitted in {fit_s:.1f} s: {ours_trees.mean():.1f} of {t_count} trees, test disagreement "
        f"{100 * ours_dis:.3f} %; LightGBM pred_early_stop matched: margin {matched[2]:g}, freq {matched[3]}, "
        f"{matched[1]:.1f} trees, {100 * matched[0]:.3f} %"
    )
    assert np.array_equal(flat.early_exit(policy, x)[0], ours_dec)
    one = dict(raw_score=True, num_threads=1)
    rows = {
        "ours: compiled early exit (D = 0.3 %)": lambda xs: flat.early_exit(policy, xs, workers=1),
        "ours: compiled traversal, all trees": lambda xs: flat.decision_function(xs),
        "LightGBM predict, all trees": lambda xs: booster.predict(xs, **one),
        f"LightGBM pred_early_stop (margin {matched[2]:g}, freq {matched[3]})": lambda xs: booster.predict(
            xs, pred_early_stop=True, pred_early_stop_freq=matched[3], pred_early_stop_margin=matched[2], **one
        ),
    }
    print(f"\n{'evaluator (1 thread)':52s} {f'{x.shape[0]:,} rows s':>14s} {'one row ms':>11s}")
    for name, fn in rows.items():
        fn(x[:10])  # compiled on first use
        batch = best_of(lambda: fn(x))
        single = best_of(lambda: [fn(x[i : i + 1]) for i in range(single_rows)], 3) / single_rows * 1e3
        print(f"{name:52s} {batch:14.4f} {single:11.4f}", flush=True)


def reference_policy(commit: str):
    """``engine/qwyc/policy.py`` (and its ``kernels.py``) as of ``commit``, importable beside today's engine."""
    import importlib
    import subprocess
    import tempfile

    root = Path(tempfile.mkdtemp()) / f"qwyc_{commit}"
    root.mkdir()
    (root / "__init__.py").write_text("")
    for name in ("policy", "kernels"):
        source = subprocess.run(
            ["git", "show", f"{commit}:engine/qwyc/{name}.py"],
            capture_output=True,
            text=True,
            cwd=Path(__file__).resolve().parent,
        )
        if source.returncode == 0:
            (root / f"{name}.py").write_text(
                source.stdout.replace("from .evaluator import", "from engine.qwyc._evaluator import")
            )
    sys.path.insert(0, str(root.parent))
    return importlib.import_module(f"{root.name}.policy")


def fit_race(commit: str = "178950a"):
    """QWYC* fits of this tree against ``commit``'s (default: the compiled scan before the blocked one)."""
    from engine.qwyc import adult_gbt_sample, fit_qwyc

    print(
        f"# {platform.platform()} | Python {platform.python_version()} | numpy {np.__version__} | "
        f"{os.cpu_count()} cores | load average {os.getloadavg()[0]:.1f} (shared machine: compare rows of one run)"
    )
    trained = adult_gbt_sample()  # the shipped file: train_adult_gbt()'s 500 trees
    f_fit, bias = trained.ensemble.contributions(trained.x_train), trained.ensemble.bias
    reference = reference_policy(commit)
    settings = (
        (0.005, False, "greedy"),
        (0.0, False, "greedy"),
        (0.02, False, "greedy"),
        (0.005, True, "greedy"),
        (0.005, False, "rationed"),
    )
    for fit in (fit_qwyc, reference.fit_qwyc):  # every path compiled (or read from Numba's cache) before timing
        for alpha, neg_only, budget in settings:
            fit(np.ascontiguousarray(f_fit[:3000, :60]), alpha=alpha, bias=bias, neg_only=neg_only, budget=budget)
    print(f"{'setting':34s} {'this tree s (CPU)':>18s} {f'{commit} s (CPU)':>18s} {'same policy':>11s} {'load':>5s}")
    for alpha, neg_only, budget in settings:
        kwargs = dict(alpha=alpha, bias=bias, neg_only=neg_only, budget=budget)
        t0, c0 = time.perf_counter(), time.process_time()
        new = fit_qwyc(f_fit, **kwargs)
        new_s, new_c = time.perf_counter() - t0, time.process_time() - c0
        t0, c0 = time.perf_counter(), time.process_time()
        old = reference.fit_qwyc(f_fit, **kwargs)
        old_s, old_c = time.perf_counter() - t0, time.process_time() - c0
        same = (
            np.array_equal(new.order, old.order)
            and np.array_equal(new.eps_minus, old.eps_minus)
            and np.array_equal(new.eps_plus, old.eps_plus)
            and new.fit_disagreements == old.fit_disagreements
        )
        print(
            f"alpha {100 * alpha:.1f} %, neg_only {neg_only!s:5s}, {budget:8s} {new_s:8.2f} ({new_c:5.2f}) "
            f"{old_s:10.2f} ({old_c:5.2f}) {same!s:>11s} {os.getloadavg()[0]:5.1f}",
            flush=True,
        )


def threads_race(repeats: int = 3):
    """QWYC* fits and the tree contributions with ``workers=1`` against the default (every core), alternated."""
    from engine.qwyc import adult_gbt_sample, fit_qwyc
    from engine.qwyc._evaluator import flatten_ensemble
    from engine.qwyc.kernels import default_workers

    cores = default_workers()
    print(
        f"# {platform.platform()} | {os.cpu_count()} cores, default workers {cores} | load average "
        f"{os.getloadavg()[0]:.1f} (shared machine: compare rows of one run)"
    )
    trained = adult_gbt_sample()
    flat = flatten_ensemble(trained.ensemble)
    f_fit, bias = flat.contributions(trained.x_train), trained.ensemble.bias
    fit_qwyc(np.ascontiguousarray(f_fit[:3000, :60]), alpha=0.005, bias=bias, workers=cores)  # compiled or cached
    print(f"{'work':42s} {'1 thread s (CPU)':>17s} {f'{cores} threads s (CPU)':>18s} {'same':>5s} {'load':>5s}")

    def timed(fn):
        t0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        return out, time.perf_counter() - t0, time.process_time() - c0

    for alpha, neg_only in ((0.005, False), (0.0, False), (0.02, False), (0.005, True)):
        for _ in range(repeats):
            one, s1, c1 = timed(lambda: fit_qwyc(f_fit, alpha=alpha, bias=bias, neg_only=neg_only, workers=1))
            many, s2, c2 = timed(lambda: fit_qwyc(f_fit, alpha=alpha, bias=bias, neg_only=neg_only, workers=cores))
            same = all(np.array_equal(getattr(one, k), getattr(many, k)) for k in ("order", "eps_minus", "eps_plus"))
            print(
                f"{f'QWYC* fit, alpha {100 * alpha:.1f} %, neg_only {neg_only}':42s} {s1:8.3f} ({c1:5.2f}) "
                f"{s2:9.3f} ({c2:5.2f}) {same!s:>5s} {os.getloadavg()[0]:5.1f}",
                flush=True,
            )
    x = np.vstack([trained.x_train, trained.x_test])
    for _ in range(repeats):
        one, s1, c1 = timed(lambda: flat.contributions(x, workers=1))
        many, s2, c2 = timed(lambda: flat.contributions(x, workers=cores))
        print(
            f"{f'contributions, {x.shape[0]:,} rows x 500 trees':42s} {s1:8.3f} ({c1:5.2f}) {s2:9.3f} ({c2:5.2f}) "
            f"{np.array_equal(one, many)!s:>5s} {os.getloadavg()[0]:5.1f}",
            flush=True,
        )


def start_race(repeats: int = 3):
    """The Early exit page's α steps: QWYC* fits at neighbouring α from F alone against fits sharing one
    ``qwyc_start`` (its tier of α, as the page keeps it), alternated, default threads; then the trade-off sweep."""
    from engine.qwyc import adult_gbt_sample, fit_qwyc, qwyc_start, start_alpha

    print(
        f"# {platform.platform()} | {os.cpu_count()} cores | load average {os.getloadavg()[0]:.1f} (shared machine: "
        "compare rows of one run)"
    )
    trained = adult_gbt_sample()
    f_fit, bias = trained.ensemble.contributions(trained.x_train), trained.ensemble.bias
    f_test = trained.ensemble.contributions(trained.x_test)
    small = np.ascontiguousarray(f_fit[:3000, :60])
    fit_qwyc(small, alpha=0.005, bias=bias, start=qwyc_start(small, bias=bias))  # compiled or read from the cache

    def timed(fn):
        t0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        return out, time.perf_counter() - t0, time.process_time() - c0

    starts = {}
    for tier in (0.01, 0.02, 0.05):
        starts[tier], s, c = timed(lambda: qwyc_start(f_fit, bias=bias, max_alpha=tier))
        print(
            f"qwyc_start up to alpha {100 * tier:.0f} %: {s:.3f} s ({c:.2f} CPU), {starts[tier].nbytes / 1e6:.1f} MB, "
            f"load {os.getloadavg()[0]:.1f}",
            flush=True,
        )
    print(f"{'alpha':>7s} {'from F s (CPU)':>16s} {'with start s (CPU)':>19s} {'same':>5s} {'load':>5s}")
    for _ in range(repeats):
        for alpha in (0.0055, 0.006, 0.0065, 0.0045, 0.015):
            plain, s1, c1 = timed(lambda: fit_qwyc(f_fit, alpha=alpha, bias=bias))
            start = starts[start_alpha(alpha)]
            shared, s2, c2 = timed(lambda: fit_qwyc(f_fit, alpha=alpha, bias=bias, start=start))
            same = (
                all(np.array_equal(getattr(plain, k), getattr(shared, k)) for k in ("order", "eps_minus", "eps_plus"))
                and plain.fit_disagreements == shared.fit_disagreements
            )
            print(
                f"{100 * alpha:6.2f}% {s1:8.3f} ({c1:5.2f}) {s2:10.3f} ({c2:5.2f}) {same!s:>5s} {os.getloadavg()[0]:5.1f}",
                flush=True,
            )
    _, s, c = timed(
        lambda: tradeoff_curves(
            f_fit,
            f_test,
            labels_fit=trained.y_train,
            labels_test=trained.y_test,
            bias=bias,
            alphas=(0.0, 0.001, 0.0025, 0.005, 0.01, 0.02),
        )
    )
    print(f"trade-off curves (6 alpha, 42 policies): {s:.2f} s ({c:.2f} CPU), load {os.getloadavg()[0]:.1f}")


PAGE_STEPS = """
import os, sys, time
t0, c0 = time.perf_counter(), time.process_time()
marks = []
def mark(what):
    global t0, c0
    marks.append(f"{what} {time.perf_counter() - t0:.2f} s ({time.process_time() - c0:.2f} CPU)")
    t0, c0 = time.perf_counter(), time.process_time()
from engine.qwyc import adult_gbt_sample, fit_qwyc, tradeoff_curves
trained = adult_gbt_sample()
f_fit = trained.ensemble.contributions(trained.x_train)
f_test = trained.ensemble.contributions(trained.x_test)
mark("model and contributions")
policy = fit_qwyc(f_fit, alpha=0.005, bias=trained.ensemble.bias)
policy.evaluate(f_fit, trained.y_train), policy.evaluate(f_test, trained.y_test), policy.predict(f_test)
mark("first policy (alpha 0.5 %) and its metrics")
tradeoff_curves(f_fit, f_test, labels_fit=trained.y_train, labels_test=trained.y_test, bias=trained.ensemble.bias,
                alphas=(0.0, 0.001, 0.0025, 0.005, 0.01, 0.02))
mark("trade-off curves")
print("; ".join(marks), f"| load {os.getloadavg()[0]:.1f}")
"""


def page_race(commit: str = "178950a"):
    """The Early exit page's engine work (first screen, trade-off curves) in fresh processes: this tree, then ``commit``'s."""
    import subprocess
    import tempfile

    print(
        f"# {platform.platform()} | {os.cpu_count()} cores | OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS')} "
        f"| load average {os.getloadavg()[0]:.1f}"
    )
    here = Path(__file__).resolve().parent.parent
    old = Path(tempfile.mkdtemp())
    archive = subprocess.run(
        ["git", "archive", commit, "engine", "sample_data"], capture_output=True, cwd=here, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(old)], input=archive, check=True)
    for name, tree in (("this tree", here), (commit, old)):
        for _ in range(2):  # the first run of a tree also fills Numba's cache
            out = subprocess.run(
                [sys.executable, "-c", PAGE_STEPS],
                capture_output=True,
                text=True,
                env={**os.environ, "PYTHONPATH": str(tree)},
                cwd=tree,
            )
        print(f"{name}: {out.stdout.strip() or out.stderr.strip()[-300:]}", flush=True)


if __name__ == "__main__":
    if "--evaluator" in sys.argv[1:]:
        evaluator_race()
    elif "--page" in sys.argv[1:]:
        rest = sys.argv[sys.argv.index("--page") + 1 :]
        page_race(*rest[:1])
    elif "--threads" in sys.argv[1:]:
        threads_race()
    elif "--start" in sys.argv[1:]:
        start_race()
    elif "--fit" in sys.argv[1:]:
        rest = sys.argv[sys.argv.index("--fit") + 1 :]
        fit_race(*rest[:1])
    else:
        main()
