"""``opstudio``: every paper from the command line, and the dashboard launcher.

Usage::

    opstudio --version
    opstudio samples [--json]
    opstudio app [--port 8501]
    opstudio sweep FILE (--target 0.3 | --review-cost C --value-per-positive V [--cost-per-false-positive F])
        [--classifier NAME] [--json]
    opstudio sweep FILE --classifier NAME [--by COL] (--capacity N | --reviewers R --reviews-per-day Q [--date COL]
        | --target M | --review-cost C --value-per-positive V) [--json]
    opstudio paths FILE (--target 0.3 | --review-cost C --value-per-positive V) [--method graph|analytic|both]
        [--rule or|and] [--bins N] [--json]
    opstudio batch FILE [--prob COL] [--batch COL] --loss NAME --out decisions.csv [--json]
    opstudio qwyc fit MODEL DATA --alpha A [--neg-only] [--label COL] --policy-out policy.json
    opstudio qwyc apply MODEL DATA --policy policy.json --out decisions.csv
    opstudio constrain TABLE --label COL --group COL=VALUE [--demographic-parity K] ... --model-out m.json
        --predictions-out pred.csv
    opstudio predict model.json TABLE --out pred.csv
    opstudio monitor FILE --date COL --threshold T (--target M | --review-cost C --value-per-positive V) [--json]
    opstudio audit plan POPULATION --score COL --id COL --below T --budget N --out plan.csv [--json]
    opstudio audit estimate --rated RATED --audit plan.csv [--threshold t ...] [--json]
    opstudio monitor FILE --decision ID [--as EMAIL] [--json]
    opstudio workspace init|upgrade|info [--json]
    opstudio datasets add FILE [--name N] [--kind K] [--private] [--as EMAIL] [--json]
    opstudio datasets list [--kind K] [--as EMAIL] [--json]
    opstudio decisions propose --dataset SHA_OR_FILE --classifier COL --target M [--name N] [--note T] [--json]
    opstudio decisions approve|reject|deploy|retire ID [--note T] [--as EMAIL] [--json]
    opstudio decisions list [--status S] [--json]
    opstudio decisions show ID [--json]
    opstudio decisions verify [--json]
    opstudio users grant EMAIL ROLE | users revoke EMAIL [ROLE] | users list [--json]
    opstudio warmup [--json]

Errors print the same messages as the dashboard and exit with status 2, never a
traceback. Each paper's commands live in their own module (``engine.cli.pn`` ...);
:data:`COMMANDS` names each command's module, one-line help and example, so that
``opstudio --help`` is built without importing any of them and ``opstudio CMD`` imports
only CMD's module (whose ``add_parser(sub, name, help)`` adds its arguments).
"""

from __future__ import annotations

import argparse
import errno
import importlib
import os
import sys
from collections.abc import Iterable, Sequence
from typing import NamedTuple

__all__ = ["main", "COMMANDS", "Command"]


class Command(NamedTuple):
    """One ``opstudio`` command: where it lives, what it does in one line, how it is used."""

    #: the module ``engine.cli.<module>`` whose ``add_parser(sub, name, help)`` adds the command's arguments
    module: str
    #: the one-line help shown by ``opstudio --help`` (and nowhere else)
    help: str
    #: example command lines, shown at the end of the command's ``--help``
    example: str
    #: example command lines of its sub-commands (``qwyc fit`` ...), by sub-command
    parts: dict[str, str] | None = None


#: every command, in the order ``opstudio --help`` lists them: the one registry of the command line
COMMANDS = {
    "samples": Command(
        "samples", "list the shipped samples (names for --sample) and what each is for", "opstudio samples --json"
    ),
    "app": Command("app", "open the dashboard (shipped sample data loaded)", "opstudio app --port 8600 --headless"),
    "sweep": Command(
        "pn",
        "operating points of one classifier for target marginal precisions",
        "opstudio sweep --sample synthetic --target 0.3 --classifier score_text --json\n"
        "opstudio sweep --sample synthetic --classifier score_text --by region --capacity 2000",
    ),
    "paths": Command(
        "pn",
        "joint thresholds of 2+ classifiers via graph and analytic paths",
        "opstudio paths --sample synthetic --target 0.3 --method both --rule or --bins 100\n"
        "opstudio paths --sample synthetic_counts --target 0.3",
    ),
    "batch": Command(
        "setloss",
        "flag the expected-loss-optimal top k of every batch of calibrated probabilities",
        "opstudio batch --sample bank_batches --loss fbeta:2 --out decisions.csv",
    ),
    "qwyc": Command(
        "qwyc",
        "early exit for a boosted model: fit a policy, apply it",
        "opstudio qwyc fit model.txt rows.csv --alpha 0.005 --policy-out policy.json",
        {
            "fit": "opstudio qwyc fit model.txt rows.csv --alpha 0.005 --label label --policy-out policy.json",
            "apply": "opstudio qwyc apply model.txt rows.csv --policy policy.json --out decisions.csv",
        },
    ),
    "constrain": Command(
        "constraints",
        "train a linear classifier under fairness, churn, recall and coverage constraints on a table",
        "opstudio constrain --sample adult_table --label income_over_50k --group sex=Female "
        "--demographic-parity 0.8 --model-out model.json --predictions-out pred.csv",
    ),
    "predict": Command(
        "constraints",
        "apply a model written by 'opstudio constrain' to a table",
        "opstudio predict model.json --sample adult_table --out pred.csv",
    ),
    "monitor": Command(
        "monitor",
        "the deployed threshold period by period: marginal precision, re-solved operating "
        "point, anytime-valid alerts, money and reviewers",
        "opstudio monitor --sample monitoring --threshold 0.568 --target 0.3\n"
        "opstudio monitor --sample monitoring --threshold 0.568 --review-cost 3 "
        "--value-per-positive 10\n"
        "opstudio monitor --sample monitoring --decision 7",
    ),
    "audit": Command(
        "audit",
        "below-the-line audits: plan a stratified sample, estimate the missed positives",
        "opstudio audit estimate --rated satimage_rated --audit satimage_audit",
        {
            "plan": "opstudio audit plan --sample satimage_population --score score --id doc_id --below 0.9 "
            "--budget 300 --out plan.csv",
            "estimate": "opstudio audit estimate --rated satimage_rated --audit satimage_audit --json",
        },
    ),
    "workspace": Command(
        "workspace",
        "the workspace's database: create it, upgrade its schema, say where it is and what it holds",
        "opstudio workspace info --json",
        {
            "init": "opstudio workspace init",
            "upgrade": "opstudio workspace upgrade",
            "info": "opstudio workspace info --json",
        },
    ),
    "datasets": Command(
        "workspace",
        "store files in the workspace as datasets (once each, by SHA-256) and list them",
        "opstudio datasets add rated.csv --name 'March ratings' --json",
        {
            "add": "opstudio datasets add rated.csv --name 'March ratings' --kind rated --json",
            "list": "opstudio datasets list --json",
        },
    ),
    "decisions": Command(
        "decisions",
        "the operating-point registry: propose, approve, reject, deploy, retire, list, show, verify",
        "opstudio decisions propose --dataset rated.csv --classifier score_text --target 0.3 --json\n"
        "opstudio decisions approve 7 --note 'reviewed with risk'",
        {
            "propose": "opstudio decisions propose --dataset rated.csv --classifier score_text --target 0.3 --json",
            "approve": "opstudio decisions approve 7 --note 'reviewed with risk' --as ana@example.org",
            "reject": "opstudio decisions reject 7 --note 'target too low for Q3'",
            "deploy": "opstudio decisions deploy 7",
            "retire": "opstudio decisions retire 7 --note 'replaced by decision 9'",
            "list": "opstudio decisions list --status deployed --json",
            "show": "opstudio decisions show 7 --json",
            "verify": "opstudio decisions verify",
        },
    ),
    "users": Command(
        "workspace",
        "roles in the workspace (viewer, analyst, approver, admin): grant, revoke, list",
        "opstudio users grant ana@example.org approver",
        {
            "grant": "opstudio users grant ana@example.org approver",
            "revoke": "opstudio users revoke ana@example.org approver",
            "list": "opstudio users list --json",
        },
    ),
    "warmup": Command(
        "warmup",
        "compile the engine's kernels into Numba's on-disk cache: run once after installing or upgrading",
        "opstudio warmup",
    ),
}

#: example command lines by command path (``()`` for the program, ``("qwyc", "fit")``), from :data:`COMMANDS`
EXAMPLES: dict[tuple[str, ...], str] = {
    (): "opstudio samples\nopstudio sweep --sample synthetic --target 0.3\nopstudio app",
    **{(name,): command.example for name, command in COMMANDS.items()},
    **{(name, part): example for name, command in COMMANDS.items() for part, example in (command.parts or {}).items()},
}


class _Version(argparse.Action):
    """``--version``: the installed version, read only when asked (no import of the engine's heavy parts)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        import engine  # light: its names import on first use; __version__ is the one place the version is written

        print(f"opstudio {engine.__version__}")
        parser.exit(0)


_COMMAND_MODULES = {command.module for command in COMMANDS.values()} | {"common"}


def __getattr__(name: str):
    """The command modules import on first use (``opstudio --help`` and ``opstudio app`` need none of the others)."""
    if name in _COMMAND_MODULES:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _parser(commands: Iterable[str | None] | None = None) -> argparse.ArgumentParser:
    """The ``opstudio`` parser, every command listed with its one-line help from :data:`COMMANDS`.

    Parameters
    ----------
    commands : iterable of str, optional
        The commands whose module is imported and whose arguments are added; the others are listed
        only (enough for ``opstudio --help`` and an unknown command's message). None: every command.
    """
    from .common import OneLineParser, explain  # argparse and json only

    wanted = set(COMMANDS) if commands is None else set(commands)
    p = OneLineParser(
        prog="opstudio",
        description="Operating Point Studio: choose and defend "
        "classifier operating points on predicted-positive rated data.",
    )
    p.add_argument("--version", action=_Version, help="print the version and exit")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, command in COMMANDS.items():
        if name in wanted:  # the module imports its part of the engine
            importlib.import_module(f".{command.module}", __name__).add_parser(sub, name, command.help)
        else:
            sub.add_parser(name, help=command.help)
    explain(p, EXAMPLES)
    return p


def _command_of(argv: Sequence[str]) -> str | None:
    """The command named in ``argv``: its first word that is not an option (the program's options take no value)."""
    return next((word for word in argv if not word.startswith("-")), None)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one ``opstudio`` command.

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments after the program name; ``sys.argv[1:]`` when None.

    Returns
    -------
    int
        Exit status: the command's own (0 on success), 2 after an input error or a file
        that cannot be read or written (the message printed to stderr), 0 when the
        reader of stdout closed the pipe.
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    # only the named command's module is imported: `opstudio --help` and the `opstudio app` launcher (which only
    # starts the server) import no numpy or pandas
    args = _parser([_command_of(argv)]).parse_args(argv)
    try:
        return args.func(args)
    except ValueError as exc:  # InputError and the engine's other ValueErrors: a message, exit 2
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        if isinstance(exc, BrokenPipeError) or getattr(exc, "errno", None) == errno.EPIPE:
            # the reader closed the pipe (e.g. "| head"): stop quietly, and keep Python from
            # complaining again when it flushes stdout at exit
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 0
        print(f"error: {exc}", file=sys.stderr)  # a file that cannot be read or written
        return 2


if __name__ == "__main__":
    sys.exit(main())
