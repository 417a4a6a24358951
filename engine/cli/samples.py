"""``opstudio samples``: the shipped samples, one line each, with the commands that read them.

opstudio samples [--json]
"""

from __future__ import annotations

import argparse

from .common import print_json

__all__ = ["add_parser", "COMMANDS_OF_KIND", "used_by"]

#: which commands read each input kind (``--sample NAME`` in their place of FILE); tested by running each on every
#: shipped sample of the kind (tests/engine/cli/test_cli_explains.py)
COMMANDS_OF_KIND = {
    "rated": "sweep, paths (two or more classifiers), audit estimate --rated",
    "dated": "monitor, sweep",
    "counts": "paths",
    "batches": "batch",
    "training_table": "constrain, predict",
    "population": "audit plan",
    "audit": "audit estimate --audit",
}


def used_by(sample) -> str:
    """What reads ``sample``: "for" the commands of its kind, else (a model, a design record, a file as published) its
    description, which says so."""
    commands = COMMANDS_OF_KIND.get(sample.kind)
    return f"for {commands}" if commands else sample.description


def run(args) -> int:
    from ..io import SAMPLES, sample_path

    if args.json:
        print_json(
            {
                "samples": [
                    {
                        "name": key,
                        "file": s.file,
                        "kind": s.kind,
                        "title": s.title,
                        "description": s.description,
                        "used_by": used_by(s),
                        "path": str(sample_path(key)),
                    }
                    for key, s in SAMPLES.items()
                ]
            }
        )
        return 0
    width = max(map(len, SAMPLES))
    print("Shipped samples: give one as --sample NAME in place of a data file.")
    for key, s in SAMPLES.items():
        print(f"  {key:<{width}}  {s.title} — {used_by(s)}")
    return 0


def add_parser(sub: argparse._SubParsersAction, name: str, help: str) -> None:
    """Add the command ``name`` to ``sub`` with its one-line ``help`` (from :data:`engine.cli.COMMANDS`)."""
    s = sub.add_parser(name, help=help)
    s.add_argument("--json", action="store_true", help="print names, files, kinds, descriptions and paths as JSON")
    s.set_defaults(func=run)
