"""``opstudio decisions``: propose an operating point, approve, reject, deploy, retire, list, show and verify.

    opstudio decisions propose --dataset SHA_OR_FILE --classifier COL --target M [--name N] [--note T] [--json]
    opstudio decisions approve|reject|deploy|retire ID [--note T] [--json]
    opstudio decisions list [--status S] [--kind K] [--classifier COL] [--json]
    opstudio decisions show ID [--json]
    opstudio decisions verify [--json]

Every command but ``verify`` takes ``--as EMAIL`` (:mod:`engine.cli.acting`).
"""

from __future__ import annotations

import argparse
import os
import sys

from .acting import add_as_argument, cli_identity, open_cli_workspace
from .common import print_json

__all__ = ["add_parser"]

_ACTIONS = {
    "approve": "approve a proposed decision (never one you proposed)",
    "reject": "reject a proposed decision (never one you proposed)",
    "deploy": "deploy an approved decision (never one you proposed)",
    "retire": "retire a deployed decision",
}


def _rated(workspace, me, sha: str, classifier: str, label: str | None):
    from ..io import detect_columns, rated_from_frame, read_table

    dataset = workspace.dataset(sha, me)
    table = read_table(workspace.dataset_bytes(dataset.sha256, me), name=dataset.name)
    mapping = detect_columns(table.frame, score_cols=[classifier], label_col=label)
    return rated_from_frame(table.frame, mapping, name=dataset.name, fingerprint=dataset.sha256)


def run_propose(args) -> int:
    from ..pn import operating_point

    with open_cli_workspace() as workspace:
        me = cli_identity(workspace, args)
        if os.path.isfile(args.dataset):
            sha = workspace.add_dataset(args.dataset, me, kind="rated").sha256
        else:
            sha = workspace.dataset(args.dataset, me).sha256
        data = _rated(workspace, me, sha, args.classifier, args.label)
        point = operating_point(data.column(args.classifier), data.labels, args.target, data.weights)
        settings = {
            "label_column": data.mapping.label_col,
            "weight_column": data.mapping.weight_col,
            "rated": data.n_rated,
            "precision": point.precision,
            "marginal_precision_above": point.mp_above,
            "marginal_precision_below": point.mp_below,
            "fp_per_extra_tp": point.cost,
        }
        decision = workspace.propose(
            me,
            kind="operating_point",
            classifier=args.classifier,
            threshold=float(point.threshold),
            target=args.target,
            tp=point.tp,
            fp=point.fp,
            settings=settings,
            datasets=[sha],
            note=args.note,
            name=args.name,
        )
    if args.json:
        print_json(decision.as_dict())
    else:
        print(
            f"decision {decision.id} proposed: {decision.name}; threshold {decision.threshold:.6g}, "
            f"TP {decision.tp:,.6g}, FP {decision.fp:,.6g}\n{decision.link}"
        )
    return 0


def run_act(args) -> int:
    with open_cli_workspace() as workspace:
        decision = workspace.act(args.id, args.action, cli_identity(workspace, args), args.note)
    if args.json:
        print_json(decision.as_dict(history=True))
    else:
        last = decision.history[-1]
        print(f"decision {decision.id} {last.event} by {last.by} at {last.at}")
    return 0


def _print_decision(d) -> None:
    threshold = d.threshold if not isinstance(d.threshold, float) else f"{d.threshold:.6g}"
    target = "" if d.target is None else f" at marginal precision {d.target:g}"
    print(f"{d.id:>5}  {d.status:<9} {d.kind:<19} {d.classifier}: threshold {threshold}{target}  {d.name}")


def run_list(args) -> int:
    with open_cli_workspace() as workspace:
        found = workspace.decisions(
            cli_identity(workspace, args), status=args.status, kind=args.kind, classifier=args.classifier
        )
    if args.json:
        print_json([d.as_dict() for d in found])
        return 0
    for d in found:
        _print_decision(d)
    if not found:
        print("no decisions" + (f" {args.status}" if args.status else ""), file=sys.stderr)
    return 0


def run_show(args) -> int:
    with open_cli_workspace() as workspace:
        d = workspace.decision(args.id, cli_identity(workspace, args))
    if args.json:
        print_json(d.as_dict(history=True))
        return 0
    _print_decision(d)
    print(f"datasets: {', '.join(d.datasets)}\nTP {d.tp}, FP {d.fp}\n{d.link}")
    for e in d.history:
        print(f"  {e.at}  {e.event:<9} by {e.by}" + (f": {e.note}" if e.note else "") + f"  [{e.hash[:12]}]")
    return 0


def run_verify(args) -> int:
    with open_cli_workspace() as workspace:
        result = workspace.verify()
    if args.json:
        print_json(
            {
                "events": result.events,
                "decisions": result.decisions,
                "records": result.records,
                "ok": result.ok,
                "problem": result.problem,
                "head": result.head,
            }
        )
    if not result.ok:
        print(f"error: {result.problem}", file=sys.stderr)
        return 2
    if not args.json:
        print(f"{result.events} events verified")
    return 0


# --- the parser ---------------------------------------------------------------------------------------------------


def _propose_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--dataset", required=True, metavar="SHA_OR_FILE", help="a dataset's SHA-256 (or prefix), or a file")
    p.add_argument("--classifier", required=True, metavar="COL", help="the score column")
    p.add_argument("--target", required=True, type=float, metavar="M", help="target marginal precision in (0, 1)")
    p.add_argument("--label", metavar="COL", help="the label column (default: detected)")
    p.add_argument("--name", help="a name (default: '<classifier> at marginal precision <M>')")
    p.add_argument("--note", default="", help="a note for the reviewers (default: empty)")
    p.set_defaults(func=run_propose)


def add_parser(sub: argparse._SubParsersAction, name: str, help: str) -> None:
    """Add the command ``name`` to ``sub`` with its one-line ``help`` (from :data:`engine.cli.COMMANDS`)."""
    from ..workspace import DECISION_KINDS, STATUSES

    actions = sub.add_parser(name, help=help).add_subparsers(dest="action", required=True, metavar="ACTION")
    parsers = [actions.add_parser("propose", help="propose the operating point of a classifier on a dataset")]
    _propose_arguments(parsers[0])
    for action, text in _ACTIONS.items():
        a = actions.add_parser(action, help=text)
        a.add_argument("id", type=int, help="the decision's number")
        a.add_argument("--note", default="", help="a note for the record (default: empty)")
        a.set_defaults(func=run_act)
        parsers.append(a)
    lst = actions.add_parser("list", help="the decisions you may open, newest first")
    lst.add_argument("--status", choices=STATUSES, help="only this status")
    lst.add_argument("--kind", choices=list(DECISION_KINDS), help="only this kind")
    lst.add_argument("--classifier", help="only this classifier")
    lst.set_defaults(func=run_list)
    show = actions.add_parser("show", help="one decision with its history")
    show.add_argument("id", type=int, help="the decision's number")
    show.set_defaults(func=run_show)
    verify = actions.add_parser("verify", help="recompute every hash: exit 2 naming the first that no longer matches")
    verify.set_defaults(func=run_verify)
    for a in (*parsers, lst, show):
        add_as_argument(a)
    for a in (*parsers, lst, show, verify):
        a.add_argument("--json", action="store_true", help="print JSON")
