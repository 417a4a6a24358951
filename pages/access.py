"""Access: who you are in this studio and what you may do; admins grant and revoke roles here too."""

import pandas as pd
import streamlit as st

from engine.errors import InputError
from engine.workspace import ACTIONS, ROLES
from views.identity import allowed, auth_configured, current_identity, identity_sidebar, workspace
from views.navigation import routed
from views.state import md
from views.tables import show_table


def no_role(identity) -> None:
    """The one page of an identity without a role: who they are, and that an admin must grant one."""
    st.warning(
        f"**{md(identity.name)}** has no role in this workspace, so it shows you nothing yet. An admin must grant "
        "you one (viewer, analyst, approver or admin), on this page or on the server:",
        icon=":material/lock:",
    )
    st.code(f"opstudio users grant {identity.name} viewer", language="bash")
    if not auth_configured():
        st.caption(
            "This server has no logins, and its workspace has roles (team mode): the dashboard acts as `local`. "
            "Configure logins (an `[auth]` section in Streamlit's secrets), or grant `local` a role."
        )
    identity_sidebar(identity)


def powers(identity) -> None:
    """Each action, and whether this identity may take it (the reason when not)."""
    rows = []
    for action, words in ACTIONS.items():
        permission = allowed(action)
        rows.append({"action": words, "allowed": "yes" if permission else "no", "why not": permission.reason})
    show_table(pd.DataFrame(rows))
    st.caption(
        "Actions on a decision are also checked against it: its status, whether you proposed it (four-eyes: "
        "nobody approves, rejects or deploys their own proposal) and whether its data is private."
    )


def grant_form() -> None:
    """Grant a role (admins)."""
    with st.form("grant", clear_on_submit=True, border=True):
        c = st.columns([3, 2, 1], vertical_alignment="bottom")
        email = c[0].text_input("E-mail (the login's email claim, or its sub)", key="grant_email")
        role = c[1].selectbox("Role", ROLES, key="grant_role")
        if c[2].form_submit_button("Grant", icon=":material/person_add:"):
            try:
                user = workspace().grant(email, role, current_identity())
                st.success(f"{md(user.email)} now holds: {', '.join(user.roles)}.")
            except InputError as exc:
                st.error(md(exc))


def revoke_form(users) -> None:
    """Revoke one role, or every role, of an identity that has some (admins)."""
    c = st.columns([3, 2, 1], vertical_alignment="bottom")
    email = c[0].selectbox("Identity", [u.email for u in users], key="revoke_email")
    held = next(u.roles for u in users if u.email == email)
    role = c[1].selectbox("Role to revoke", ["every role", *held], key="revoke_role")
    if c[2].button("Revoke", key="revoke", icon=":material/person_remove:"):
        try:
            taken = workspace().revoke(email, None if role == "every role" else role, current_identity())
            st.success(f"{md(email)} no longer holds: {', '.join(taken)}.")
        except InputError as exc:
            st.error(md(exc))


def grants(identity) -> None:
    """The workspace's grants; admins (with logins) grant and revoke here."""
    st.subheader("Roles in this workspace")
    if not allowed("manage_grants"):
        st.caption("Admins manage roles here; ask one (or the server's operator: `opstudio users grant`).")
        return
    if identity.single_user:
        st.caption(
            "Single-user mode: grants are managed on a dashboard with logins, or with `opstudio users grant`. "
            "The first grant puts the workspace in team mode, where this dashboard without logins acts as `local` "
            "and sees nothing until `local` is granted a role."
        )
        return
    grant_form()
    users = workspace().users()
    if users:
        table = pd.DataFrame([{**u.as_dict(), "roles": ", ".join(u.roles)} for u in users])
        show_table(table)
        revoke_form(users)


routed()  # a page Streamlit ran without app.py runs again through it (views.navigation.routed)
st.title("Access")
me = current_identity()
if not me.roles:
    no_role(me)
    st.stop()
st.markdown(f"You are **{md(me.name)}**" + (" (single-user mode: every role)." if me.single_user else "."))
st.caption(f"Roles: {', '.join(r for r in ROLES if r in me.roles)}.")
powers(me)
grants(me)
