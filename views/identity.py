"""Who uses the dashboard: the login gate, the identity a session acts as, and the workspace it acts on.

**Logins.** When Streamlit's secrets hold an ``[auth]`` section (Streamlit's own convention:
``.streamlit/secrets.toml`` where the server runs, or ``~/.streamlit/secrets.toml``), every page requires
``st.login``: before it the only page is a login button, and nothing of the workspace is read or shown.
The identity is the provider's ``email`` claim (or its ``sub``), read from Streamlit's signed identity
cookie (``st.user``) on every run — never from the URL, a form field or the session state, so no query
parameter can change who you are. Without ``[auth]`` the studio is single-user: the identity is
``local`` (and ``opstudio app`` serves on localhost only).

**Roles** are the workspace's (``opstudio users grant``, or the Access page for admins). A logged-in
identity without one sees the Access page alone: who they are, and that an admin must grant them a role.
Every check is :func:`engine.workspace.may`, asked through :func:`allowed`: no page decides who may do what.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict

import streamlit as st

from engine.errors import InputError
from engine.pages import page_for
from engine.workspace import ROLES, Identity, Permission, Workspace, open_workspace, settings_from_env
from views.navigation import run_page
from views.state import md

#: workspaces held open by this server (one per database and store; tests point the environment at several)
_WORKSPACES: OrderedDict = OrderedDict()
_LOCK = threading.Lock()
_MAX_WORKSPACES = 4
#: seconds an identity's roles are reused between runs (a grant or a revocation applies within this)
ROLES_SECONDS = 2.0
_ROLES: dict = {}


def workspace() -> Workspace:
    """The workspace the server's environment names (``OPSTUDIO_DATABASE_URL``, ``OPSTUDIO_DATASETS`` ...), opened
    once per server and created or upgraded when needed.

    Raises
    ------
    InputError
        The database or the store cannot be opened (the message says which and why).
    """
    settings = settings_from_env()
    with _LOCK:
        found = _WORKSPACES.get(settings)
        if found is None:
            try:
                found = open_workspace(settings)
            except InputError:
                raise
            except Exception as exc:  # a database that is down, a folder that cannot be written ...
                raise InputError(f"The workspace could not be opened ({type(exc).__name__}: {exc}).") from None
            _WORKSPACES[settings] = found
            while len(_WORKSPACES) > _MAX_WORKSPACES:
                _WORKSPACES.popitem(last=False)[1].close()
        _WORKSPACES.move_to_end(settings)
        return found


def auth_configured() -> bool:
    """Whether Streamlit's secrets hold an ``[auth]`` section (logins through an OpenID Connect provider)."""
    try:
        return bool(st.secrets.load_if_toml_exists() and st.secrets.get("auth"))
    except Exception:  # secrets that cannot be read are no logins; Streamlit logs why at start-up
        return False


def login_name() -> str | None:
    """The logged-in identity's ``email`` claim (or ``sub``) from Streamlit's signed cookie; None when logged out."""
    if not st.user.get("is_logged_in", False):
        return None
    return str(st.user.get("email") or st.user.get("sub") or "") or None


def current_identity() -> Identity:
    """Who this session acts as, with the workspace's roles: the login with logins, else ``local``.

    Raises
    ------
    InputError
        Logins are configured and nobody is logged in, the login's claim is not an identity, or the
        workspace cannot be opened.
    """
    team = auth_configured()
    name = login_name() if team else None
    if team and name is None:
        raise InputError("Log in first: this studio requires a login.")
    ws = workspace()
    key = (ws.settings, name, team)
    kept = _ROLES.get(key)
    if kept is not None and time.monotonic() - kept[0] < ROLES_SECONDS:
        return kept[1]
    identity = ws.identity(name, team=team or None)
    if len(_ROLES) > 1000:
        _ROLES.clear()
    _ROLES[key] = (time.monotonic(), identity)
    return identity


def allowed(action: str, obj: object = None, datasets=()) -> Permission:
    """:func:`engine.workspace.may` for this session's identity (the datasets of ``obj`` read from the workspace).

    A workspace that cannot be opened allows nothing, and the reason says why.
    """
    try:
        return workspace().may(current_identity(), action, obj, datasets=datasets)
    except InputError as exc:
        return Permission(False, str(exc))


def _login_page() -> None:
    """The one page before a login: what this is, and the login button (nothing of the workspace)."""
    st.title("Operating Point Studio")
    st.markdown("This studio is shared by a team and requires a login.")
    if st.button("Log in", type="primary", key="login", icon=":material/login:"):
        st.login()
    if st.query_params.to_dict():
        st.caption(
            "You opened a link to a view or a decision: after logging in you arrive on Home; open the link again."
        )


def _refused_page(message: str) -> None:
    st.title("Operating Point Studio")
    st.error(md(message))


def gate() -> Identity | None:
    """``app.py``'s first step: the identity of this session, or None after drawing the only page it may see.

    Not logged in (with logins): the login page. Logged in without a role, or ``local`` in a workspace that has
    roles: the Access page alone. A workspace that cannot be opened: with logins, its error alone (nothing is
    allowed); single-user, the studio runs and says so in the sidebar (saving and proposing then refuse).
    """
    team = auth_configured()
    if team and login_name() is None:
        st.navigation([st.Page(_login_page, title="Log in", url_path="login", default=True)], position="hidden").run()
        return None
    try:
        identity = current_identity()
    except InputError as exc:
        if team:
            message = str(exc)
            st.navigation(
                [st.Page(lambda: _refused_page(message), title="Studio", url_path="studio", default=True)],
                position="hidden",
            ).run()
            return None
        st.session_state["_workspace_problem"] = str(exc)
        return Identity("local", frozenset(ROLES), single_user=True)
    st.session_state.pop("_workspace_problem", None)
    if not identity.roles:
        access = page_for("access")
        only = st.Page(access.script, title=access.title, icon=access.icon, url_path=access.url_path, default=True)
        run_page(st.navigation([only], position="hidden"))  # as app.py runs pages (views.navigation.routed)
        return None
    return identity


def identity_sidebar(identity: Identity) -> None:
    """Who is using the studio, in the sidebar: the login with its roles and a logout, or single-user mode."""
    with st.sidebar:
        if identity.single_user:
            st.caption(
                "**Single-user mode**: you act as `local` with every role (no logins: Streamlit's secrets hold no "
                "`[auth]` section). See *Running for a team* in the documentation to share the studio."
            )
            problem = st.session_state.get("_workspace_problem")
            if problem:
                st.warning(f"The workspace is not available: {md(problem)}", icon=":material/database:")
            return
        roles = ", ".join(r for r in ROLES if r in identity.roles) or "no role"
        st.markdown(f"Signed in as **{md(identity.name)}**")
        st.caption(f"Roles: {roles}")
        if auth_configured() and st.button("Log out", key="logout", icon=":material/logout:"):
            st.logout()
