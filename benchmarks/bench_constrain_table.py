"""`opstudio constrain` on a user's kind of table against the Adult fit (issue: own data and models).

Target: a 30,000-row table with 20 mixed columns (numeric, categorical, missing values, empty labels)
trains under demographic parity kappa = 0.8 no slower than UCI Adult under the same constraint, timed
in the same run (both through engine.constraints.tabular.train_on_table, so preprocessing and the deterministic
refits are included).

    python benchmarks/bench_constrain_table.py
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

from engine.constraints._tabular import TableSpec, train_on_table  # noqa: E402
from engine.io import read_table, sample_path  # noqa: E402


def mixed_table(n: int = 30_000, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    group = rng.choice(["A", "B"], n, p=[0.35, 0.65])
    latent = rng.normal(size=n) + 0.7 * (group == "B")
    frame = {"group": group}
    for j in range(12):  # numeric, some informative, 3 % missing
        values = rng.normal(size=n) + (0.4 * latent if j < 4 else 0)
        values[rng.random(n) < 0.03] = np.nan
        frame[f"num_{j}"] = values.round(4)
    for j in range(7):  # categorical with 3..12 levels
        levels = np.array([f"c{j}_{k}" for k in range(3 + j)])
        frame[f"cat_{j}"] = levels[
            np.clip((latent * (j % 3 + 1) + rng.normal(size=n) * 2).astype(int) % levels.size, 0, levels.size - 1)
        ]
    label = np.where(latent + rng.normal(size=n) > 0.8, "yes", "no").astype(object)
    label[rng.random(n) < 0.05] = ""
    frame["label"] = label
    return pd.DataFrame(frame)


def main():
    print(
        f"# {platform.platform()} | Python {platform.python_version()} | numpy {np.__version__} | "
        f"{os.cpu_count()} cores"
    )
    adult = read_table(sample_path("adult_table")).frame
    cases = {
        "UCI Adult (48,842 rows, 14 features, split column)": (
            adult,
            TableSpec("income_over_50k", group="sex", group_value="Female", demographic_parity=0.8, split="split"),
        ),
        "mixed table (30,000 rows, 20 columns, 5 % unlabelled)": (
            mixed_table(),
            TableSpec("label", group="group", group_value="A", demographic_parity=0.8),
        ),
    }
    print(f"{'table':56s} {'seconds':>8s} {'features':>9s} {'train ratio':>12s} {'test error':>11s}")
    for name, (frame, spec) in cases.items():
        t0 = time.perf_counter()
        model = train_on_table(frame, spec)
        seconds = time.perf_counter() - t0
        print(
            f"{name:56s} {seconds:8.1f} {len(model.preprocessing.feature_names):9d} "
            f"{model.rates['train']['demographic_parity_ratio']:12.3f} {model.rates['test']['error']:11.4f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
