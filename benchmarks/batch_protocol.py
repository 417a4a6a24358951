"""The paper's batch experiment (Natarajan et al. 2016, section 5.2) on offline public data.

    python benchmarks/batch_protocol.py

Mean test loss over batches for (a) threshold 0.5, (b) a threshold tuned on
validation batches for the loss, (c) the expected-loss-optimal top k.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.setloss import compare_baselines, train_probabilities  # noqa: E402

BATCH = {"breast_cancer": 20, "bank": 100, "adult": 100}
print(
    f"{'data set':14s} {'batch':>5s} {'loss':8s} {'batches':>7s} {'thr 0.5':>9s} {'tuned thr':>10s} {'top-k':>9s}"
    f" {'top-k se':>9s}"
)
for name, size in BATCH.items():
    split = train_probabilities(name)
    for loss in ("f1", "jaccard", "am", "gmean"):
        c = compare_baselines(split, loss, size)
        s = c.summary.set_index(c.summary["method"].str.split(" ").str[0])
        print(
            f"{name:14s} {size:5d} {loss:8s} {int(s['batches'].iloc[0]):7d} {s.loc['threshold', 'mean_test_loss']:9.4f}"
            f" {s.loc['plug-in', 'mean_test_loss']:10.4f} {s.loc['expected-loss-optimal', 'mean_test_loss']:9.4f}"
            f" {s.loc['expected-loss-optimal', 'std_error']:9.4f}",
            flush=True,
        )
