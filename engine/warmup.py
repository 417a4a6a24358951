"""Every compiled kernel of the engine in Numba's on-disk cache before a user's first call needs it.

The engine's loops are compiled by Numba (``@njit(cache=True)``): QWYC*'s scan and thresholds, the early-exit
evaluator, the hashed Poisson bootstrap and the hull band, the set losses' pair sums, the constrained solver's
sparse products. Numba compiles a kernel on its first call in a process and keeps the machine code in its on-disk
cache (``__pycache__`` beside the module when writable, else ``NUMBA_CACHE_DIR`` or ``~/.cache/numba``); later
processes read it (a fraction of a second) instead of compiling (17–40 s for QWYC* alone on a fresh install).

**How the cache is filled.** :func:`warm_kernels` calls the engine's public entry points with the same argument types
as the pages and the command line (the shipped samples, a few thousand rows), so that every kernel is compiled once
for the types users' calls bring. It runs

* at install: ``opstudio warmup`` (the documented step after ``pip install``, and after every upgrade: Numba
  recompiles a module whose source changed);
* at every dashboard start, in a child process at the lowest CPU priority (``python -m engine.warmup``, started by
  ``views.housekeeping``), which only reads the cache when it is warm (2–3 s).

Nothing compiled ships in the wheel: machine code is specific to a CPU. Numba keys each cache entry by the
signature and the CPU (its name and features); on a CPU the cache was not built for, the entries do not match and
the first call compiles again (correct, only slow), adding entries for that CPU beside the others. Run
``opstudio warmup`` on the machine that serves, or build and run with ``NUMBA_CPU_NAME=generic`` for a cache that
fits every x86-64 CPU (slower code). Ahead-of-time compilation (``numba.pycc``) was not chosen: it is deprecated,
needs a C compiler at build time and one wheel per platform, and its functions hold the GIL (the engine's threads
rely on ``nogil``); nor a compile in a thread at import: it would hold the interpreter of the process the user
is working in, and the user's first call would wait for the same compile anyway.

:func:`kernels` lists every compiled kernel and :func:`cache_counts` what this process read from the cache and what it
compiled (Numba's own per-signature counts): ``tests/engine/test_warmup.py`` proves with them that after the warm-up
a fresh process compiles nothing on its first ``fit_qwyc``, ``operating_point``, ``bootstrap`` or
``expected_losses`` (nor on the pages' first visits).
"""

from __future__ import annotations

import importlib
import os
import sys
import time

__all__ = ["KERNEL_MODULES", "WARM_ROWS", "cache_counts", "kernels", "main", "warm_kernels"]

#: Adult rows the warm-up runs QWYC* on: the same array types as the page's 32,561 × 500 (so the same compiled
#: versions), enough rows × trees for the threaded scan, and little work when the cache is already warm (a server
#: start runs the warm-up every time, and a full-size run beside the first α steps slowed them by ~0.2 s)
WARM_ROWS = 4096

#: the modules that define compiled kernels (``tests/engine/test_warmup.py`` checks that no other module does)
KERNEL_MODULES = (
    "engine.pn.kernels",
    "engine.qwyc.kernels",
    "engine.qwyc._evaluator",
    "engine.qwyc._scan",
    "engine.setloss.kernels",
    "engine.constraints.kernels",
)


def kernels() -> dict:
    """Every compiled kernel of the engine, by its qualified name.

    Returns
    -------
    dict of str to numba Dispatcher
        Module-level kernels and the set losses' per-loss kernels (``KERNELS``); kernels inlined into their callers
        (``inline="always"``) are left out, since they are never compiled on their own. Empty without Numba.
    """
    try:
        from numba.core.registry import CPUDispatcher
    except ImportError:  # pragma: no cover - Numba is a dependency
        return {}
    found = {}
    for name in KERNEL_MODULES:
        module = importlib.import_module(name)
        for obj in [*vars(module).values(), *getattr(module, "KERNELS", {}).values()]:
            if isinstance(obj, CPUDispatcher) and obj.targetoptions.get("inline") != "always":
                found[f"{obj.py_func.__module__}.{obj.py_func.__qualname__}"] = obj
    return found


def cache_counts() -> dict[str, tuple[int, int]]:
    """What each kernel cost this process so far: (versions read from the cache, versions compiled).

    Returns
    -------
    dict of str to (int, int)
        Kernels called at least once, from Numba's per-signature cache hit and miss counts (a miss is a compile).
        A kernel that only ran inside another one's compiled code does not appear.
    """
    counts = {}
    for name, dispatcher in kernels().items():
        hits, misses = sum(dispatcher._cache_hits.values()), sum(dispatcher._cache_misses.values())
        if hits or misses:
            counts[name] = (hits, misses)
    return counts


def _warm_qwyc(rows: int) -> None:
    """The Early exit page and ``opstudio qwyc fit|apply``: contributions, QWYC* (every variant), the evaluators."""
    from .qwyc import (
        adult_gbt_sample,
        calibrate_fidelity,
        fit_qwyc,
        full_decisions,
        qwyc_start,
        start_alpha,
        tradeoff_curves,
    )

    trained = adult_gbt_sample()
    bias, part = trained.ensemble.bias, slice(0, rows)
    f_fit = trained.ensemble.contributions(trained.x_train[part])
    f_test = trained.ensemble.contributions(trained.x_test[part])
    alpha = 0.005  # the page's default α
    start = qwyc_start(f_fit, bias=bias, max_alpha=start_alpha(alpha))  # type: ignore[arg-type]
    policy = fit_qwyc(f_fit, alpha=alpha, bias=bias, start=start)
    predicted = policy.predict(f_test)
    full = full_decisions(f_test, bias, policy.threshold)
    policy.evaluate(f_test, trained.y_test[part], full=full, predicted=predicted)
    policy.evaluate(f_fit, trained.y_train[part], full=full_decisions(f_fit, bias, policy.threshold))
    fit_qwyc(f_fit[:, :100], alpha=0.01, bias=bias)  # the CLI fits without a start
    fit_qwyc(f_fit[:, :100], alpha=0.01, bias=bias, neg_only=True, budget="rationed")
    policy.predict_lazy(trained.ensemble, trained.x_test[part])
    trained.model.features(trained.x_test[0])  # type: ignore[attr-defined]  # one row (qwyc apply's one-row path), then every tree of it
    trained.ensemble.decision_function(trained.x_test[:64])
    calibrate_fidelity(f_fit[:2000, :60], bias=bias)
    tradeoff_curves(  # fixed orders, baselines
        f_fit[:1000, :40],
        f_test[:1000, :40],
        labels_fit=trained.y_train[:1000],
        labels_test=trained.y_test[:1000],
        bias=bias,
        alphas=(0.0, 0.01),
    )


def _warm_pn() -> None:
    """The Operating point page and ``opstudio sweep``: the hashed Poisson bootstrap and the resampled hull band."""
    from .backends import rated_row_ids
    from .io._rated import load_rated
    from .io._samples import sample_path, samples_of_kind
    from .pn import bootstrap, operating_point

    rated = load_rated(sample_path(next(iter(samples_of_kind("rated")))))
    scores = rated.column(rated.score_names[0])
    ids = rated_row_ids(rated)
    bootstrap(scores, rated.labels, rated.weights, n_boot=20, level=0.95, seed=0, resample="poisson", ids=ids)
    bootstrap(
        scores, rated.labels, n_boot=20, level=0.95, seed=0
    )  # multinomial, no weights: segments and the CLI's defaults
    operating_point(scores, rated.labels, 0.3, rated.weights)


def _warm_setloss() -> None:
    """Batch decisions: the compiled pair sum of every loss that has one."""
    import numpy as np

    from .setloss import LOSSES, expected_losses

    eta = np.random.default_rng(0).uniform(size=40)
    for key, choice in LOSSES.items():
        if choice.rates is not None:  # compiled: a pair kernel of its own
            expected_losses(eta, key)


def _warm_constraints() -> None:
    """Constrained training on a table (one-hot features: the sparse design's products and the hinge sums)."""
    from threadpoolctl import threadpool_limits

    from .constraints.tabular import TableSpec, detect_training_columns, train_on_table
    from .io import read_table, sample_path

    frame = read_table(sample_path("adult_table")).frame.head(3000)
    roles = detect_training_columns(frame)
    spec = TableSpec(
        label=roles.label, group=roles.group, group_value="Female", split=roles.split, demographic_parity=0.8
    )
    with threadpool_limits(limits=1, user_api="blas"):  # small solves: BLAS's spinning threads, 25x slower when busy
        train_on_table(frame, spec)


def warm_kernels(rows: int = WARM_ROWS) -> float:
    """Call every compiled kernel of the engine once, with the argument types the pages and the CLI bring.

    QWYC* and the evaluators on the first ``rows`` Adult rows of the shipped model, the bootstraps of the default
    rated sample, the set losses' pair sums on 40 probabilities, a constrained fit on 3,000 rows of the shipped
    training table. Results are discarded; what remains is Numba's on-disk cache.

    Parameters
    ----------
    rows : int, optional
        Adult rows QWYC* runs on.

    Returns
    -------
    float
        Seconds taken.
    """
    t0 = time.perf_counter()
    _warm_qwyc(rows)
    _warm_pn()
    _warm_setloss()
    _warm_constraints()
    return time.perf_counter() - t0


def main() -> int:
    """``python -m engine.warmup``: :func:`warm_kernels` at the lowest CPU priority; exit 0 whatever happens.

    A warm-up that fails (no write access to the cache, a missing sample) costs nothing but the compile the page
    would have done anyway, so it reports one line on standard error and exits 0.

    Returns
    -------
    int
        0.
    """
    try:
        os.nice(19)
    except (AttributeError, OSError):  # pragma: no cover - not POSIX
        pass
    try:
        seconds = warm_kernels()
    except Exception as exc:  # noqa: BLE001 - a cache warm-up must never fail loudly
        print(f"opstudio warm-up skipped: {exc!r}", file=sys.stderr)
        return 0
    print(f"opstudio warm-up: compiled kernels cached in {seconds:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
