"""Numba's on-disk cache filled before a page needs it.

The engine's compiled kernels (``@njit(cache=True)``: QWYC*'s scan and thresholds, the early-exit
evaluator, the hashed Poisson bootstrap) are compiled on their first call after an install or an
upgrade and read from Numba's on-disk cache afterwards. On a fresh install the Early exit page's first
visit compiled them in the foreground: 17.8–18.1 s instead of 3.9 s (benchmarks/RESULTS.md). The server
runs :func:`warm_kernels` once at start in a separate process at the lowest CPU priority
(``python -m engine.warmup``; ``views.housekeeping``), so it never holds the server's interpreter and
yields the cores to anything else; when the cache is already warm it only reads it.

It calls the same public functions, with the same kinds of arrays, as the pages do, on the shipped
samples: Numba compiles one machine-code version per argument type, so a kernel warmed on other types
would be compiled again.
"""

from __future__ import annotations

import os
import sys
import time

__all__ = ["warm_kernels", "main", "WARM_ROWS"]

#: Adult rows the warm-up runs QWYC* on: the same array types as the page's 32,561 × 500 (so the same compiled
#: versions), enough rows × trees for the threaded scan, and little work when the cache is already warm (a server
#: start runs the warm-up every time, and a full-size run beside the first α steps slowed them by ~0.2 s)
WARM_ROWS = 4096


def warm_kernels() -> float:
    """Run the compiled paths of the Early exit page and of the Operating point's bootstrap once.

    The Early exit page's first visit (the shipped model's contributions, QWYC*'s first step and fit at the
    default α, the policy on the test rows) on the first :data:`WARM_ROWS` rows, and the hashed Poisson
    bootstrap of the default rated sample.
    Results are discarded; what remains is Numba's on-disk cache.

    Returns
    -------
    float
        Seconds taken.
    """
    from .backends import rated_row_ids
    from .io.rated import load_rated
    from .io.samples import sample_path, samples_of_kind
    from .pn import bootstrap
    from .qwyc import adult_gbt_sample, fit_qwyc, full_decisions, qwyc_start, start_alpha

    t0 = time.perf_counter()
    trained = adult_gbt_sample()
    bias, rows = trained.ensemble.bias, slice(0, WARM_ROWS)
    f_fit = trained.ensemble.contributions(trained.x_train[rows])
    f_test = trained.ensemble.contributions(trained.x_test[rows])
    y_fit, y_test = trained.y_train[rows], trained.y_test[rows]
    alpha = 0.005  # the page's default α
    start = qwyc_start(f_fit, bias=bias, max_alpha=start_alpha(alpha))  # type: ignore[arg-type]
    policy = fit_qwyc(f_fit, alpha=alpha, bias=bias, start=start)
    predicted = policy.predict(f_test)
    policy.evaluate(f_test, y_test, full=full_decisions(f_test, bias, policy.threshold), predicted=predicted)
    policy.evaluate(f_fit, y_fit, full=full_decisions(f_fit, bias, policy.threshold))

    rated = load_rated(sample_path(next(iter(samples_of_kind("rated")))))
    scores = rated.column(rated.score_names[0])
    bootstrap(
        scores, rated.labels, rated.weights, n_boot=20, level=0.95, seed=0, resample="poisson", ids=rated_row_ids(rated)
    )
    return time.perf_counter() - t0


def main() -> int:
    """``python -m engine.warmup``: :func:`warm_kernels` at the lowest CPU priority; exit 0 whatever happens.

    A warm-up that fails (no write access to the cache, a missing sample) costs nothing but the compile the page
    would have done anyway, so it reports one line on standard error and exits 0.
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
