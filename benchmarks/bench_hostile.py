"""Issue 33: the scans that hung on hostile input, timed against what they replaced.

1. ``json_depth`` (the nesting check every untrusted JSON goes through) on adversarial documents of
   1, 8 and 64 MB, against the regular expression it replaced (given at most ``--old-seconds`` a size:
   it is cubic-looking on escaped quotes, 140 kB took over a minute).
2. The e-detector over P periods (the mixture over start times): one pass, against the O(P^2) table it
   replaced (at most 2,000 periods: 9 s there).
3. ``monitor`` on daily periods up to :data:`engine.monitor._periods.MAX_PERIODS` (20 rated documents a day).

Timings on a shared machine are noisy; take final numbers on a quiet one.

    python benchmarks/bench_hostile.py [json|detector|periods|all] [--old-seconds S]
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

import numpy as np
from scipy.special import logsumexp

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.monitor import monitor, period_counts  # noqa: E402
from engine.monitor._alerts import BAND_SIZES, e_detector, start_weights  # noqa: E402
from engine.monitor._periods import MAX_PERIODS  # noqa: E402
from engine.untrusted import json_depth  # noqa: E402

_OLD_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)


def old_json_depth(raw: bytes) -> int:
    """The scan before issue 33: strings masked by a regular expression, then a cumulative sum."""
    text = _OLD_STRING.sub(b'""', raw)
    codes = np.frombuffer(text, dtype=np.uint8)
    step = np.zeros(codes.size, dtype=np.int32)
    step[(codes == ord("{")) | (codes == ord("["))] = 1
    step[(codes == ord("}")) | (codes == ord("]"))] = -1
    return int(np.cumsum(step).max(initial=0))


def _timed(f, *args) -> float:
    started = time.perf_counter()
    f(*args)
    return time.perf_counter() - started


def bench_json(old_seconds: float) -> None:
    print("json_depth on adversarial documents (seconds; old = the regular expression it replaced, up to 140 kB)")
    patterns = {"escaped quotes": b'\\"', "escaped backslash + quote": b'\\\\\\"', "brackets in a string": b"[{"}
    for size in (35_000, 70_000, 140_000, 2**20, 8 * 2**20, 64 * 2**20):
        for name, unit in patterns.items():
            raw = b'["' + unit * (size // len(unit)) + b"]"
            new = _timed(json_depth, raw)
            old = f"{_timed(old_json_depth, raw):.2f}" if size <= 140_000 and size * 4 <= old_seconds * 1e4 else "-"
            print(f"  {size / 2**20:7.3f} MB  {name:<26} new {new:7.3f}  old {old}")


def _old_log_side(llr: np.ndarray) -> np.ndarray:
    """The detector's value before issue 33: the (n, j) table of every period and start."""
    periods, k = llr.shape
    s = np.concatenate([np.zeros((1, k)), np.cumsum(llr, axis=0)])
    log_w = np.log(start_weights(periods))
    out = np.empty(periods)
    for n in range(periods):
        since = s[n + 1][None, :] - s[: n + 1]
        out[n] = logsumexp(logsumexp(since, axis=1) - np.log(k) + log_w[: n + 1])
    return out


def bench_detector() -> None:
    print("e-detector over P periods (both sides; seconds)")
    rng = np.random.default_rng(0)
    for p in (500, 2000, 10_000, 100_000):
        n = np.tile(np.array(BAND_SIZES, dtype=float), (p, 1))
        x = rng.binomial(n.astype(int), 0.3).astype(float)
        new = _timed(e_detector, x, n, x, n, 0.3, 0.05)
        old = "-"
        if p <= 2000:
            from engine.monitor._alerts import log_likelihood_ratios

            llr = log_likelihood_ratios(x, n, 0.3, "low")
            old = f"{2 * _timed(_old_log_side, llr):.2f}"
        print(f"  P = {p:>7,}  new {new:7.3f}  old {old}")


def bench_periods() -> None:
    print("counts + monitor on daily periods, 20 rated documents a day (seconds)")
    rng = np.random.default_rng(1)
    for p in (365, 3650, MAX_PERIODS):
        days = np.datetime64("2000-01-01") + rng.integers(0, p, 20 * p).astype("timedelta64[D]")
        s = rng.random(days.size)
        y = (rng.random(days.size) < s).astype(int)
        started = time.perf_counter()
        counts = period_counts(s, y, days, "day")
        counted = time.perf_counter() - started
        run = _timed(monitor, counts, 0.5, 0.3)
        print(f"  {p:>6,} days  counts {counted:6.3f}  monitor {run:6.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", nargs="?", default="all", choices=("json", "detector", "periods", "all"))
    parser.add_argument("--old-seconds", type=float, default=120.0, help="time allowed to the old scan per pattern")
    args = parser.parse_args()
    if args.what in ("json", "all"):
        bench_json(args.old_seconds)
    if args.what in ("detector", "all"):
        bench_detector()
    if args.what in ("periods", "all"):
        bench_periods()


if __name__ == "__main__":
    main()
