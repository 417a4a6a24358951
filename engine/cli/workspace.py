"""``opstudio workspace``, ``opstudio datasets`` and ``opstudio users``: the workspace's database, datasets and roles.

    opstudio workspace init|upgrade|info [--json]
    opstudio datasets add FILE [--name N] [--kind K] [--private] [--as EMAIL] [--json]
    opstudio datasets list [--kind K] [--as EMAIL] [--json]
    opstudio users grant EMAIL ROLE
    opstudio users revoke EMAIL [ROLE]
    opstudio users list [--json]

Who acts: ``--as EMAIL``, else the operating-system user. A workspace without grants is single-user
(every role); with grants, the identity's roles decide (:mod:`engine.workspace.access`). Whoever runs
these commands can read the database and the store, so ``--as`` and ``users`` are the server
operator's powers (docs/team.md).
"""

from __future__ import annotations

import argparse
import sys

from .acting import add_as_argument, cli_identity, open_cli_workspace, operator
from .common import print_json

__all__ = ["add_parser"]


# --- opstudio workspace -------------------------------------------------------------------------------------------


def run_workspace(args) -> int:
    workspace = open_cli_workspace()
    with workspace:
        info = workspace.info()
        if args.json:
            print_json(info)
            return 0
        before, now = workspace.schema_before, workspace.schema_version
        if args.action in ("init", "upgrade"):
            if before is None:
                print(f"created the workspace database at schema {now}")
            elif before != now:
                print(f"upgraded the workspace database from schema {before} to {now}")
            else:
                print(f"the workspace database is at the newest schema, {now}")
        print(f"database: {info['database']}\nschema version: {info['schema_version']}")
        print(f"dataset store: {workspace.settings.datasets}")
        print(f"datasets: {info['datasets']}\nviews: {info['views']}\ndecisions: {info['decisions']}")
    return 0


# --- opstudio datasets --------------------------------------------------------------------------------------------


def _dataset_json(dataset, full: bool) -> dict:
    extra = {"owner": dataset.owner, "private": dataset.private, "created_at": dataset.created_at} if full else {}
    return {**dataset.as_dict(), **extra}


def run_datasets(args) -> int:
    with open_cli_workspace() as workspace:
        me = cli_identity(workspace, args)
        if args.action == "add":
            dataset = workspace.add_dataset(args.file, me, name=args.name, kind=args.kind, private=args.private)
            if args.json:
                print_json(_dataset_json(dataset, full=False))
            else:
                rows = "" if dataset.rows is None else f", {dataset.rows:,} rows"
                print(f"{dataset.sha256}  {dataset.name} ({dataset.kind}{rows}, {dataset.bytes:,} bytes)")
            return 0
        found = workspace.datasets(me, kind=args.kind)
        if args.json:
            print_json([_dataset_json(d, full=True) for d in found])
            return 0
        for d in found:
            rows = "" if d.rows is None else f"{d.rows:,} rows, "
            shared = "private" if d.private else "shared"
            print(f"{d.sha256[:12]}  {d.name}  {d.kind}  {rows}{d.bytes:,} bytes  {d.owner} ({shared})  {d.created_at}")
        if not found:
            print("no datasets yet: opstudio datasets add FILE", file=sys.stderr)
    return 0


# --- opstudio users -----------------------------------------------------------------------------------------------


def run_users(args) -> int:
    with open_cli_workspace() as workspace:
        if args.action == "grant":
            user = workspace.grant(args.email, args.role, operator(workspace))
            if args.json:
                print_json(user.as_dict())
            else:
                print(f"{user.email}: {', '.join(user.roles)}")
        elif args.action == "revoke":
            taken = workspace.revoke(args.email, args.role, operator(workspace))
            print(f"revoked {', '.join(taken)} from {args.email.strip().lower()}")
        else:
            users = workspace.users()
            if args.json:
                print_json([u.as_dict() for u in users])
                return 0
            for u in users:
                print(f"{u.email}  {', '.join(u.roles)}  (granted by {u.granted_by} at {u.granted_at})")
            if not users:
                print("no grants: the workspace is single-user (every role for everyone who runs it)")
    return 0


def _kinds() -> list[str]:
    from ..io import INPUT_KINDS

    return list(INPUT_KINDS)


def _workspace_arguments(p: argparse.ArgumentParser) -> None:
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    helps = {
        "init": "create the database (and the dataset store's folder) if they do not exist",
        "upgrade": "upgrade the database to this version's schema",
        "info": "where the database is, its schema version and what it holds",
    }
    for action, text in helps.items():
        a = actions.add_parser(action, help=text)
        a.add_argument(
            "--json", action="store_true", help='print {"database", "schema_version", "datasets", "views", "decisions"}'
        )
        a.set_defaults(func=run_workspace)


def _datasets_arguments(p: argparse.ArgumentParser) -> None:
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    add = actions.add_parser("add", help="store a file's bytes (once, by SHA-256) as a dataset")
    add.add_argument("file", help="the file (CSV, CSV.gz, Parquet, a model file ...)")
    add.add_argument("--name", help="a name (default: the file's name)")
    add.add_argument("--kind", choices=_kinds(), help="what the file holds (default: guessed from its bytes)")
    add.add_argument("--private", action="store_true", help="visible only to who adds these bytes (default: shared)")
    lst = actions.add_parser("list", help="the datasets you may open, newest first")
    lst.add_argument("--kind", choices=_kinds(), help="only this kind")
    for a in (add, lst):
        add_as_argument(a)
        a.add_argument("--json", action="store_true", help="print JSON")
        a.set_defaults(func=run_datasets)


def _users_arguments(p: argparse.ArgumentParser) -> None:
    from ..workspace import ROLES

    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    grant = actions.add_parser("grant", help="give an identity a role")
    grant.add_argument("email", help="the identity (the login's e-mail)")
    grant.add_argument("role", choices=ROLES, help="viewer, analyst, approver or admin")
    revoke = actions.add_parser("revoke", help="take a role (or every role) from an identity")
    revoke.add_argument("email", help="the identity")
    revoke.add_argument("role", nargs="?", choices=ROLES, help="the role (default: every role)")
    lst = actions.add_parser("list", help="every identity with a role")
    for a in (grant, revoke, lst):
        a.add_argument("--json", action="store_true", help="print JSON")
        a.set_defaults(func=run_users)


def add_parser(sub: argparse._SubParsersAction, name: str, help: str) -> None:
    """Add the command ``name`` to ``sub`` with its one-line ``help`` (from :data:`engine.cli.COMMANDS`)."""
    {"workspace": _workspace_arguments, "datasets": _datasets_arguments, "users": _users_arguments}[name](
        sub.add_parser(name, help=help)
    )
