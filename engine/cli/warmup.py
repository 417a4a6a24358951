"""``opstudio warmup``: compile the engine's kernels into Numba's on-disk cache, the step after installing.

    opstudio warmup [--json]

Run once after ``pip install`` (and after every upgrade): afterwards no process compiles on its first call
(``engine.warmup`` says how the cache is kept and what happens on another CPU).
"""

from __future__ import annotations

import argparse
from typing import Any

from .common import print_json

__all__ = ["add_parser"]


def _cache_dirs(kernels: dict) -> list[str]:
    """Where Numba keeps the kernels' cache files (a ``__pycache__`` beside each module, or one directory)."""
    found = {str(getattr(getattr(d, "_cache", None), "_cache_path", "")) for d in kernels.values()}
    return sorted(p for p in found if p)


def run(args) -> int:
    from ..warmup import cache_counts, kernels, warm_kernels

    seconds = warm_kernels()
    counts = cache_counts()
    compiled = sorted(name for name, (_, misses) in counts.items() if misses)
    summary: dict[str, Any] = {
        "seconds": round(seconds, 2),
        "kernels": len(kernels()),
        "compiled": len(compiled),
        "read_from_cache": sum(1 for _, (hits, misses) in counts.items() if hits and not misses),
        "cache": _cache_dirs(kernels()),
    }
    if args.json:
        print_json({**summary, "compiled_kernels": compiled})
    else:
        print(
            f"opstudio warmup: {summary['compiled']} kernels compiled, {summary['read_from_cache']} read from Numba's "
            f"cache, in {seconds:.1f} s; the next processes read them all ({', '.join(summary['cache'][:2])}"
            f"{' ...' if len(summary['cache']) > 2 else ''})."
        )
    return 0


def add_parser(sub: argparse._SubParsersAction, name: str, help: str) -> None:
    """Add the command ``name`` to ``sub`` with its one-line ``help`` (from :data:`engine.cli.COMMANDS`)."""
    w = sub.add_parser(name, help=help)
    w.add_argument("--json", action="store_true", help="print the counts as JSON")
    w.set_defaults(func=run)
