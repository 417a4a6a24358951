"""Who acts on which workspace, for the commands that touch it: ``--as EMAIL``, the operating-system user, the
server operator, and ``opstudio monitor FILE --decision ID`` (a deployed decision's threshold and target, its alerts
stored on it).

Not a command: ``opstudio workspace|datasets|users`` (:mod:`engine.cli.workspace`), ``opstudio decisions``
(:mod:`engine.cli.decisions`) and ``opstudio monitor`` (:mod:`engine.cli.monitor`) share it. Whoever runs the
command line can read the database and the store, so acting ``--as`` someone else and managing grants are the
server operator's powers (docs/team.md).
"""

from __future__ import annotations

import argparse
import getpass
import hashlib
import os
import sys

from ..errors import InputError

__all__ = [
    "open_cli_workspace",
    "cli_identity",
    "operator",
    "add_as_argument",
    "add_monitor_arguments",
    "monitor_decision",
    "store_monitoring",
]


def open_cli_workspace():
    """The workspace the environment names (``OPSTUDIO_DATABASE_URL`` ...), created or upgraded when needed."""
    from ..workspace import open_workspace

    return open_workspace()


def _os_user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no user name for this uid (some containers)
        return "local"


def cli_identity(workspace, args):
    """The identity a command acts as: ``--as EMAIL`` or the operating-system user, with its roles."""
    return workspace.identity(getattr(args, "as_identity", None) or _os_user())


def operator(workspace):
    """The server's operator managing grants from the command line (an admin by definition)."""
    from ..workspace import Identity

    return Identity(workspace.identity(_os_user()).name, frozenset({"admin"}))


def add_as_argument(parser: argparse.ArgumentParser) -> None:
    """``--as EMAIL``: act as another identity (the server operator's power)."""
    parser.add_argument(
        "--as",
        dest="as_identity",
        metavar="EMAIL",
        help="act as this identity with its roles (the server operator's power; default: the operating-system user)",
    )


# --- opstudio monitor FILE --decision ID --------------------------------------------------------------------------


def add_monitor_arguments(parser: argparse.ArgumentParser) -> None:
    """``--decision ID`` (and ``--as EMAIL``) on ``opstudio monitor``."""
    parser.add_argument(
        "--decision",
        type=int,
        metavar="ID",
        help="a deployed decision of the workspace: its threshold, target and classifier are monitored and the "
        "alerts are stored on it (instead of --threshold and --target; no default)",
    )
    add_as_argument(parser)


def monitor_decision(args) -> None:
    """With ``--decision ID``: set ``args.threshold``, ``args.target`` and ``args.classifier`` from the deployed
    decision (refusing flags that would contradict it); without it, require ``--threshold``."""
    if args.decision is None:
        if args.threshold is None:
            raise InputError("give --threshold T (the deployed threshold) or --decision ID (a deployed decision)")
        return
    if args.threshold is not None or args.target is not None or args.review_cost is not None:
        raise InputError("--decision ID sets the threshold and the target; leave out --threshold, --target and money")
    with open_cli_workspace() as workspace:
        decision = workspace.decision(args.decision, cli_identity(workspace, args))
    if decision.status != "deployed":
        raise InputError(f"decision {decision.id} is {decision.status}; only a deployed decision is monitored")
    if decision.kind != "operating_point" or not isinstance(decision.threshold, (int, float)):
        raise InputError(f"decision {decision.id} is a {decision.kind}; monitoring follows one classifier's threshold")
    if args.classifier not in (None, decision.classifier):
        raise InputError(f"decision {decision.id} is about {decision.classifier}, not {args.classifier}")
    args.threshold, args.target, args.classifier = float(decision.threshold), decision.target, decision.classifier


def _digest(path: str) -> str:
    digest = hashlib.sha256()
    if os.path.isfile(path):
        with open(path, "rb") as f:
            while chunk := f.read(4 * 2**20):
                digest.update(chunk)
    else:  # a glob or a DuckDB table: its name
        digest.update(path.encode("utf-8"))
    return digest.hexdigest()


def store_monitoring(args, result) -> None:
    """With ``--decision ID``: store the run's alerts on the decision (a ``monitoring`` record keyed by the file's
    SHA-256) and say so on stderr."""
    if args.decision is None:
        return
    body = result.alerts_record(os.path.basename(str(args.file)))
    with open_cli_workspace() as workspace:
        me = cli_identity(workspace, args)
        record = workspace.add_record("monitoring", _digest(str(args.file)), body, me, decision_id=args.decision)
    print(f"{len(result.alerts)} alert(s) stored on decision {args.decision} (record {record.id})", file=sys.stderr)
