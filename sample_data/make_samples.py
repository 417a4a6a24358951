"""Regenerate every file in sample_data/ (seeded, reproducible).

    python sample_data/make_samples.py [path/to/shared]

The Bank Marketing samples need the UCI copy in ``../shared/data/bank_marketing``.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.io._samples import SAMPLE_DIR  # noqa: E402
from engine.sample_builders import write_samples  # noqa: E402

if __name__ == "__main__":
    shared = Path(sys.argv[1]) if len(sys.argv) > 1 else SAMPLE_DIR.parent.parent / "shared"
    for key, path in write_samples(SAMPLE_DIR, shared if shared.exists() else None).items():
        print(f"{key:18s} {path.relative_to(SAMPLE_DIR.parent)}  {path.stat().st_size:,} bytes")
