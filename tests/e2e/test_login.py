"""Logins, roles and four-eyes in a real browser, through a real OpenID Connect provider started here.

``oidc-provider-mock`` serves an OpenID Connect provider on localhost whose authorize page has one
button per predefined user; the studio's server reads ``[auth]`` from ``~/.streamlit/secrets.toml`` of
a temporary HOME (never the repository's), and its workspace (a temporary ``OPSTUDIO_HOME``) holds the
grants made here. Each identity browses in its own browser context (its own cookies).
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from engine.workspace import Identity, open_workspace, settings_from_env
from tests.e2e.conftest import free_port, metric, settle, shot, start_server, stop_server

pytestmark = pytest.mark.e2e

oidc = pytest.importorskip("oidc_provider_mock")

#: who logs in, and the roles the workspace grants them (none: no grant)
PEOPLE = {
    "alice": ("analyst", "approver"),  # proposes, and approves other people's proposals
    "carol": ("analyst",),
    "bob": ("approver",),
    "vic": ("viewer",),
    "nora": (),
}
OPERATOR = Identity("ops", frozenset({"admin"}))


def email(who: str) -> str:
    return f"{who}@example.com"


@pytest.fixture(scope="module")
def team(tmp_path_factory):
    """The provider, a studio with logins on its workspace, and the workspace itself (grants made here)."""
    root = tmp_path_factory.mktemp("team")
    home, studio_home = root / "home", root / "opstudio"
    env = {"HOME": str(home), "OPSTUDIO_HOME": str(studio_home)}
    workspace = open_workspace(settings_from_env(env))
    for who, roles in PEOPLE.items():
        for role in roles:
            workspace.grant(email(who), role, OPERATOR)
    users = [oidc.User(sub=who, claims={"email": email(who)}) for who in PEOPLE]
    with oidc.run_server_in_thread(port=0, user_claims=users) as provider:
        port = free_port()
        (home / ".streamlit").mkdir(parents=True)
        (home / ".streamlit" / "secrets.toml").write_text(
            "[auth]\n"
            f'redirect_uri = "http://localhost:{port}/oauth2callback"\n'
            'cookie_secret = "a-long-random-cookie-secret-for-the-tests"\n'
            'client_id = "studio"\n'
            'client_secret = "studio-secret"\n'
            f'server_metadata_url = "http://localhost:{provider.server_port}/.well-known/openid-configuration"\n'
        )
        proc, _ = start_server(env, port=port)
        try:
            yield f"http://localhost:{port}", workspace
        finally:
            stop_server(proc)
            workspace.close()


@pytest.fixture
def browse(browser):
    """A fresh browser context per identity (its own cookies), closed after the test."""
    contexts = []

    def open_page() -> Page:
        context = browser.new_context(viewport={"width": 1500, "height": 1100})
        contexts.append(context)
        return context.new_page()

    yield open_page
    for context in contexts:
        context.close()


def log_in(page: Page, base: str, who: str) -> None:
    """The studio's login button, the provider's button for ``who``, back on Home signed in."""
    page.goto(base)
    page.get_by_role("button", name="Log in").click()
    page.get_by_role("button", name=who, exact=True).click()
    page.wait_for_url(re.compile(rf"^{re.escape(base)}"), timeout=60_000)
    sidebar = page.locator('[data-testid="stSidebar"]')
    if PEOPLE[who]:
        expect(sidebar).to_contain_text(f"Signed in as {email(who)}", timeout=60_000)


def sidebar_nav(page: Page, title: str, text: str) -> None:
    page.locator('[data-testid="stSidebarNav"]').get_by_text(title, exact=True).click()
    settle(page, text)


def test_before_a_login_only_the_login_page_shows(team, browse):
    base, _ = team
    page = browse()
    for path in ("", "/operating-point", "/decisions?decision=1", "/access"):
        page.goto(f"{base}{path}")
        expect(page.get_by_role("button", name="Log in")).to_be_visible(timeout=60_000)
        body = page.locator("body").inner_text()
        assert "Operating point" not in body and "Decisions" not in body and "synthetic" not in body, body[:400]
        assert page.locator('[data-testid="stSidebarNav"]').count() == 0


def test_an_identity_without_a_grant_sees_who_it_is_and_nothing_else(team, browse):
    base, _ = team
    page = browse()
    log_in(page, base, "nora")
    expect(page.get_by_text("nora@example.com has no role in this workspace")).to_be_visible(timeout=60_000)
    expect(page.locator('[data-testid="stCode"]')).to_contain_text("opstudio users grant nora@example.com viewer")
    assert page.locator('[data-testid="stSidebarNav"]').count() == 0
    page.goto(f"{base}/operating-point")
    expect(page.get_by_text("has no role in this workspace")).to_be_visible(timeout=60_000)
    assert "Sweep of target marginal precisions" not in page.locator("body").inner_text()
    shot(page, "login_no_role")


def test_propose_four_eyes_approve_and_the_viewer_sees_the_same_numbers(team, browse):
    base, workspace = team
    alice = browse()
    log_in(alice, base, "alice")
    alice.goto(f"{base}/operating-point")
    settle(alice, "Sweep of target marginal precisions")
    threshold = metric(alice, "Threshold")
    alice.get_by_role("button", name="Propose decision").first.click()
    alice.get_by_label("Note for the reviewers").first.fill("Q3 threshold")
    alice.get_by_role("button", name="Propose", exact=True).first.click()
    expect(alice.get_by_text(re.compile(r"Decision \d+ proposed"))).to_be_visible(timeout=60_000)
    decision = workspace.decisions(Identity(email("bob"), frozenset({"approver"})))[0]
    assert decision.proposed_by == email("alice") and decision.status == "proposed"
    # the proposer, an approver too, opens it: no Approve button, and the page says why (four-eyes)
    alice.goto(f"{base}/decisions?decision={decision.id}")
    settle(alice, "History")
    expect(
        alice.get_by_text(
            f"alice@example.com proposed decision {decision.id}; four-eyes: another approver must approve it"
        )
    ).to_be_visible()
    assert alice.get_by_role("button", name="Approve").count() == 0
    shot(alice, "login_four_eyes")
    # an approver approves; the history names both
    bob = browse()
    log_in(bob, base, "bob")
    bob.goto(f"{base}/decisions?decision={decision.id}")
    settle(bob, "History")
    bob.get_by_label("Note for the history").fill("reviewed")
    bob.get_by_role("button", name="Approve").click()
    expect(bob.get_by_text(f"Decision {decision.id}: approved")).to_be_visible(timeout=60_000)
    expect(
        bob.get_by_text(re.compile(r"Proposed by alice@example\.com at .*; approved by bob@example\.com at"))
    ).to_be_visible()
    assert [e.by for e in workspace.decision(decision.id, OPERATOR).history] == [email("alice"), email("bob")]
    # a viewer opens the decision's view: the same numbers, and no control that changes anything
    view = decision.evidence["view"]
    vic = browse()
    log_in(vic, base, "vic")
    vic.goto(f"{base}/operating-point?view={view}")
    settle(vic, "Sweep of target marginal precisions")
    assert metric(vic, "Threshold") == threshold
    for control in ("Propose decision", "Save view"):
        assert vic.get_by_role("button", name=control).count() == 0, control
    sidebar_nav(vic, "Decisions", "History")
    for control in ("Approve", "Reject", "Deploy", "Retire"):
        assert vic.get_by_role("button", name=control).count() == 0, control
    sidebar_nav(vic, "Data", "Validation report")
    assert vic.get_by_text("Upload a file", exact=True).count() == 0
    assert vic.get_by_text("Connect to data on the server", exact=True).count() == 0
    shot(vic, "login_viewer")


def test_a_private_datasets_link_refuses_another_analyst(team, browse):
    base, workspace = team
    alice_id = workspace.identity(email("alice"), team=True)
    data = workspace.add_dataset(
        b"doc_id,score,label\n1,0.9,1\n2,0.8,0\n3,0.7,1\n4,0.2,0\n", alice_id, name="secret.csv", private=True
    )
    mapping = {"score_cols": ["score"], "label_col": "label", "weight_col": None, "group_col": None, "ignored_cols": []}
    ref = {"kind": "rated", "sha256": data.sha256, "name": "secret.csv", "mapping": mapping, "sample": None}
    view = workspace.save_view("operating-point", {"widgets": {}, "inputs": [ref]}, [data.sha256], alice_id)
    carol = browse()
    log_in(carol, base, "carol")
    carol.goto(f"{base}/operating-point?view={view.id}")
    expect(carol.get_by_text("This link cannot be opened")).to_be_visible(timeout=60_000)
    expect(carol.get_by_text("private to the people who added it")).to_be_visible()
    body = carol.locator("body").inner_text()
    assert "secret.csv" not in body and "Sweep of target marginal precisions" not in body
    shot(carol, "login_private_refused")
    # its owner opens it
    alice = browse()
    log_in(alice, base, "alice")
    alice.goto(f"{base}/operating-point?view={view.id}")
    settle(alice, "Sweep of target marginal precisions")
    expect(alice.locator('[data-testid="stSidebar"]')).to_contain_text("secret.csv")


def test_query_parameters_cannot_change_who_you_are(team, browse):
    base, _ = team
    page = browse()
    log_in(page, base, "vic")
    crafted = "email=bob%40example.com&user=bob%40example.com&sub=bob&as=bob%40example.com&is_logged_in=true"
    page.goto(f"{base}/access?{crafted}")
    settle(page, "Roles in this workspace")
    expect(page.get_by_text("You are vic@example.com")).to_be_visible()
    expect(page.locator('[data-testid="stSidebar"]')).to_contain_text("Signed in as vic@example.com")
    assert "bob@example.com" not in page.locator('[data-testid="stSidebar"]').inner_text()


def test_logout_ends_the_session(team, browse):
    base, _ = team
    page = browse()
    log_in(page, base, "carol")
    page.get_by_role("button", name="Log out").click()
    end = page.get_by_role("button", name="End session")  # the provider's end-session page asks to confirm
    try:
        end.click(timeout=30_000)
    except Exception:  # a provider that ends the session without asking
        pass
    expect(page.get_by_role("button", name="Log in")).to_be_visible(timeout=60_000)
    page.goto(f"{base}/operating-point")
    expect(page.get_by_role("button", name="Log in")).to_be_visible(timeout=60_000)
    assert "carol@example.com" not in page.locator("body").inner_text()
