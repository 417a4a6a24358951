"""Crafted links in a real browser: Chromium parses and encodes the URL itself (AppTest does not), so the nastiest
queries of tests/fuzz/test_query_params_fuzz.py are opened here too. Each page renders, shows no exception box,
runs no script (no dialog opens, no injected element exists) and says what it could not use."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from playwright.sync_api import expect

from engine.io import load_rated, sample_path
from engine.pn import operating_point
from tests.e2e.conftest import metric, settle, shot

pytestmark = pytest.mark.e2e

SCRIPT = "<script>alert('q')</script>"
IMAGE = "<img src=x onerror=alert('q')>"


def opened(page, server: str, path: str, text: str) -> list[str]:
    """Open ``path`` in a fresh session and wait for ``text``; the dialogs that opened meanwhile (none expected)."""
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(f"{server}/{path}")
    settle(page, text)
    return dialogs


def assert_nothing_ran(page, dialogs: list[str]) -> None:
    assert page.locator('[data-testid="stException"]').count() == 0
    assert dialogs == []
    assert page.locator('img[src="x"], [onerror]').count() == 0  # the payloads are text, not elements


def test_numbers_text_infinities_and_markup_in_the_settings(server, page):
    query = "&".join(
        [
            "seed=1e400",  # an infinite whole number: Streamlit's own reader raised OverflowError
            "n_boot=-5",
            "level=nan",
            "target=" + quote(SCRIPT),
            "classifier=" + quote(IMAGE),
            "what_if_on=" + quote("[x](javascript:alert(1))"),
            "capacity=" + "9" * 400,
        ]
    )
    dialogs = opened(page, server, f"operating-point?{query}", "Sweep of target marginal precisions")
    assert_nothing_ran(page, dialogs)
    expect(page.locator('[data-testid="stSidebar"]')).to_contain_text("synthetic_rare_events.csv.gz")
    d = load_rated(sample_path("synthetic"))  # every setting at its default: the first classifier at 0.3
    assert metric(page, "Threshold") == f"{operating_point(d.column('score_image'), d.labels, 0.3).threshold:.6g}"
    shot(page, "hostile_operating_point")


def test_money_that_overflows_is_a_message(server, page):
    query = "op_money=true&op_value_per_positive=1e308&op_cost_per_fp=1e308&op_review_cost=1e308"
    dialogs = opened(page, server, f"operating-point?{query}", "Set the target from money")
    # amounts beyond 1e15 are refused as the link's values, each named; the page goes on with the defaults
    expect(page.locator('[data-testid="stAlertContentError"]').first).to_contain_text(
        "('1e308') is not a number from 0 to 1e+15", timeout=30_000
    )
    assert_nothing_ran(page, dialogs)


def test_repeated_unknown_and_huge_parameters(server, page):
    query = "&".join(
        [
            "bins=40",
            "bins=abc",
            "rule=AND",
            "rule=" + quote("<b>or</b>"),
            quote("💥") + "=" + quote(SCRIPT),
            "sample=synthetic",
            "sample=../../etc/passwd",
            "family=" + "x" * 100_000,
        ]
    )
    dialogs = opened(page, server, f"ensemble-paths?{query}", "Comparison")
    assert_nothing_ran(page, dialogs)
    expect(page.get_by_text("names no input; it is ignored")).to_be_visible(timeout=30_000)


def test_a_crafted_link_to_missing_data_names_the_file_as_text_and_computes_nothing(server, page):
    name = quote(f"{IMAGE}.csv")
    query = "&".join(
        [
            f"data=population:{'1' * 64}:{name}",
            f"data=audit:{'2' * 64}:reviewed.csv",
            f"data=rated:{'3' * 64}:rated.csv",
        ]
    )
    dialogs = opened(page, server, f"audit?{query}", "this session does not have")
    assert_nothing_ran(page, dialogs)
    warning = page.locator('[data-testid="stAlertContentWarning"]').first.inner_text()
    assert IMAGE.replace("'", "") in warning.replace("'", "") and "SHA-256 11111111…" in warning
    assert page.locator('[data-testid="stMetric"]').count() == 0  # no plan, no estimate of a shipped sample
    assert "satimage" not in page.locator('[data-testid="stSidebar"]').inner_text()
    expect(page.get_by_role("link", name="Go to Data")).to_be_visible()
    shot(page, "hostile_missing_data")
