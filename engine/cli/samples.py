"""``opstudio samples``: the shipped samples, one line each, with the commands that read them.

opstudio samples [--json]
"""

from __future__ import annotations

import argparse

from .common import print_json

__all__ = ["add_parser", "COMMANDS_OF_KIND"]

#: which commands read each input kind (``--sample NAME`` in their place of FILE)
COMMANDS_OF_KIND = {
    "rated": "sweep, paths, monitor (dated samples), audit estimate --rated",
    "counts": "paths",
    "batches": "batch",
    "training_table": "constrain, predict",
    "population": "audit plan",
    "audit": "audit estimate --audit",
    None: "a public file as published (the other samples are built from it)",
}


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
                        "used_by": COMMANDS_OF_KIND.get(s.kind, ""),
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
        print(f"  {key:<{width}}  {s.title} — for {COMMANDS_OF_KIND.get(s.kind, '')}")
    return 0


def add_parser(sub: argparse._SubParsersAction, name: str, help: str) -> None:
    """Add the command ``name`` to ``sub`` with its one-line ``help`` (from :data:`engine.cli.COMMANDS`)."""
    s = sub.add_parser(name, help=help)
    s.add_argument("--json", action="store_true", help="print names, files, kinds, descriptions and paths as JSON")
    s.set_defaults(func=run)
