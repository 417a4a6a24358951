"""A meeting's decision record built as a user builds it: an item from every page on the shipped samples, then
items from files of the user's own (made here from the public data in ``shared/data``, not from the samples).

Shared by the printed-record tests (``test_record_printed.py``, ``test_record_page_images.py``) and
``benchmarks/bench_record.py``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from engine.pages import PAGES
from tests.app.conftest import APP, upload_input

#: every page that adds to the decision record, with the buttons that add (clicked in this order)
RECORDING = (
    ("pages/operating_point.py", ("record_op", "record_segments")),
    ("pages/monitoring.py", ("record_monitoring",)),
    ("pages/ensemble_paths.py", ("record_paths",)),
    ("pages/batch_decisions.py", ("record_batch",)),
    ("pages/early_exit.py", ("record_qwyc",)),
    ("pages/constraints.py", ("train_constrained", "record_constraints")),
    ("pages/audit.py", ("record_plan", "record_audit")),
)
#: the public data the own files are made from
SHARED = Path(__file__).resolve().parents[3] / "shared" / "data"
if not SHARED.exists():  # a checkout beside shared/ (CI) or inside a worktree folder
    SHARED = next((p / "shared" / "data" for p in Path(__file__).resolve().parents if (p / "shared").exists()), SHARED)
MAMMOGRAPHY = SHARED / "adbench" / "23_mammography.npz"
BANK = SHARED / "bank_marketing" / "bank.csv"


def own_rated() -> bytes:
    """Rated data of two classifiers on ADBench's mammography (11,183 documents, 2.3 % positive): a discriminant
    score and one feature, every document rated."""
    with np.load(MAMMOGRAPHY, allow_pickle=False) as data:
        x, y = data["X"], data["y"].astype(int)
    z = (x - x.mean(axis=0)) / x.std(axis=0)
    w = z[y == 1].mean(axis=0) - z[y == 0].mean(axis=0)
    frame = pd.DataFrame(
        {
            "case_id": np.arange(1, y.size + 1),
            "discriminant": np.round(z @ w, 6),
            "contrast": np.round(z[:, 0], 6),
            "malignant": np.where(y == 1, "yes", "no"),
        }
    )
    return frame.to_csv(index=False).encode()


def _bank() -> pd.DataFrame:
    """UCI Bank Marketing (4,521 calls) with a call's probability of a subscription from its duration."""
    bank = pd.read_csv(BANK, sep=";")
    month = {
        m: k
        for k, m in enumerate(
            ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"], start=1
        )
    }
    dates = pd.to_datetime({"year": 2025, "month": bank["month"].map(month), "day": bank["day"]}, errors="coerce")
    bank = bank.assign(date=dates, p=np.round(1 / (1 + np.exp(-(bank["duration"] - 600) / 150)), 6))
    return bank[bank["date"].notna()].reset_index(drop=True)


def own_dated() -> bytes:
    """Dated ratings: every call of 2025 with its score and whether the client subscribed."""
    bank = _bank().sort_values("date", kind="stable")
    frame = pd.DataFrame(
        {
            "rated_on": bank["date"].dt.strftime("%Y-%m-%d"),
            "duration_score": bank["p"],
            "subscribed": bank["y"],
        }
    )
    return frame.to_csv(index=False).encode()


def own_batches() -> bytes:
    """Probability batches: one batch per month of calls."""
    bank = _bank()
    frame = pd.DataFrame(
        {
            "call_id": [f"call-{k:05d}" for k in range(len(bank))],
            "batch": bank["month"],
            "p_subscribe": bank["p"],
            "outcome": bank["y"],
        }
    )
    return frame.to_csv(index=False).encode()


#: the own files and the page that records each: (file name, kind, bytes, page, record button)
OWN = (
    ("mammography_rated.csv", "rated", own_rated, "pages/operating_point.py", "record_op"),
    ("bank_calls_2025.csv", "dated", own_dated, "pages/monitoring.py", "record_monitoring"),
    ("bank_batches.csv", "batches", own_batches, "pages/batch_decisions.py", "record_batch"),
)


def record_of_every_page(*, own: bool = True, timeout: float = 600) -> list:
    """The items a meeting collects: one from every page's "Add to decision record" (9 on the samples), then, with
    ``own``, an operating point, a monitoring and a batch decision on files of the user's own (12 in all)."""
    from streamlit.testing.v1 import AppTest

    from tests.apptest_setup import legacy_page_folders_off

    legacy_page_folders_off()  # also when a benchmark calls this outside pytest
    at = AppTest.from_file(APP, default_timeout=timeout)
    at.run()
    for page, buttons in RECORDING:
        at.switch_page(page).run()
        assert not at.exception, (page, at.exception)
        for key in buttons:
            at.button(key=key).click().run()
            assert not at.exception, (key, at.exception)
    if own:
        for name, kind, make, page, button in OWN:
            at = upload_input(at, name, make(), kind=kind)
            assert not at.exception and not at.error, (name, at.exception, [e.value for e in at.error])
            # the page was opened on its sample already: it takes the file when told ("Use on <page>")
            at.button(key=f"use_on_{next(p.url_path for p in PAGES if p.script == page)}").click().run()
            at.switch_page(page).run()
            assert not at.exception, (page, at.exception)
            at.button(key=button).click().run()
            assert not at.exception, (button, at.exception)
    return list(at.session_state["_decision_record"])
