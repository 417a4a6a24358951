"""``opstudio``: every paper from the command line, and the dashboard launcher.

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

Errors print the same messages as the dashboard and exit with status 2, never a
traceback. Each paper's commands live in their own module (``engine.cli.pn`` ...)
and register themselves through ``add_parser(s)``.
"""

from __future__ import annotations

import argparse
import errno
import os
import sys
from typing import Sequence

from . import app

#: one example per command, shown at the end of its ``--help``
EXAMPLES = {
    (): "opstudio samples\nopstudio sweep --sample synthetic --target 0.3\nopstudio app",
    ("app",): "opstudio app --port 8600 --headless",
    ("samples",): "opstudio samples --json",
    ("sweep",): "opstudio sweep --sample synthetic --target 0.3 --classifier score_text --json\n"
                "opstudio sweep --sample synthetic --classifier score_text --by region --capacity 2000",
    ("paths",): "opstudio paths --sample synthetic --target 0.3 --method both --rule or --bins 100\n"
                "opstudio paths --sample synthetic_counts --target 0.3",
    ("batch",): "opstudio batch --sample bank_batches --loss fbeta:2 --out decisions.csv",
    ("qwyc",): "opstudio qwyc fit model.txt rows.csv --alpha 0.005 --policy-out policy.json",
    ("qwyc", "fit"): "opstudio qwyc fit model.txt rows.csv --alpha 0.005 --label label --policy-out policy.json",
    ("qwyc", "apply"): "opstudio qwyc apply model.txt rows.csv --policy policy.json --out decisions.csv",
    ("constrain",): "opstudio constrain --sample adult_table --label income_over_50k --group sex=Female "
                    "--demographic-parity 0.8 --model-out model.json --predictions-out pred.csv",
    ("predict",): "opstudio predict model.json --sample adult_table --out pred.csv",
    ("monitor",): "opstudio monitor --sample monitoring --threshold 0.568 --target 0.3\n"
                  "opstudio monitor --sample monitoring --threshold 0.568 --review-cost 3 --value-per-positive 10",
    ("audit",): "opstudio audit estimate --rated satimage_rated --audit satimage_audit",
    ("audit", "plan"): "opstudio audit plan --sample satimage_population --score score --id doc_id --below 0.9 "
                       "--budget 300 --out plan.csv",
    ("audit", "estimate"): "opstudio audit estimate --rated satimage_rated --audit satimage_audit --json",
}


class _Version(argparse.Action):
    """``--version``: the installed version, read only when asked (no import of the engine's heavy parts)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        from importlib.metadata import PackageNotFoundError, version

        try:
            number = version("operating-point-studio")
        except PackageNotFoundError:  # a checkout on the path without an installed copy
            from ..reporting import ENGINE_VERSION as number
        print(f"opstudio {number}")
        parser.exit(0)

__all__ = ["main"]

_COMMAND_MODULES = ("audit", "constraints", "monitor", "pn", "qwyc", "samples", "setloss")


def __getattr__(name: str):
    """The command modules import on first use (``opstudio app`` needs none of them)."""
    if name in _COMMAND_MODULES:
        import importlib

        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _parser() -> argparse.ArgumentParser:
    from . import audit, constraints, monitor, pn, qwyc, samples, setloss  # each imports its part of the engine
    from .common import explain

    p = argparse.ArgumentParser(prog="opstudio", description="Operating Point Studio: choose and defend "
                                "classifier operating points on predicted-positive rated data.")
    p.add_argument("--version", action=_Version, help="print the version and exit")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    samples.add_parser(sub)
    app.add_parser(sub)
    pn.add_parsers(sub)
    setloss.add_parsers(sub)
    qwyc.add_parsers(sub)
    constraints.add_parsers(sub)
    monitor.add_parser(sub)
    audit.add_parsers(sub)
    explain(p, EXAMPLES)
    return p


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
    if argv[:1] == ["app"]:  # the launcher only starts the server: no engine, numpy or pandas in this process
        p = argparse.ArgumentParser(prog="opstudio")
        app.add_parser(p.add_subparsers(dest="command", required=True))
        args = p.parse_args(argv)
        return args.func(args)
    args = _parser().parse_args(argv)
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
