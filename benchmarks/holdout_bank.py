"""The paper's public-data experiment on UCI Bank Marketing (sample_data/bank_marketing_scored.csv.gz).

    python benchmarks/holdout_bank.py

Thresholds are chosen on the `tune` half (joint thresholds from the graph and
analytic paths, OR rule, and each classifier alone at its own operating point),
then precision / recall / F1 are measured on the fully labelled `test` half.
"""

import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.io import sample_path  # noqa: E402
from engine.pn._comparison import evaluate_holdout  # noqa: E402

frame = pd.read_csv(sample_path("bank_holdout"))
cols = ["score_profile", "score_campaign"]
tune, test = frame[frame["split"] == "tune"], frame[frame["split"] == "test"]
with pd.option_context("display.width", 200, "display.float_format", "{:.4f}".format):
    for target in (0.3, 0.5):
        table = evaluate_holdout(
            tune[cols],
            (tune["y"] == "yes").astype(int),
            test[cols],
            (test["y"] == "yes").astype(int),
            target,
            rule="or",
            bins=100,
            families=("power", "spline"),
            score_names=cols,
        )
        print(f"target marginal precision {target}")
        print(table.to_string(index=False))
        print()
