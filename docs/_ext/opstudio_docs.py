"""Pages of the documentation site written from the code at build time, never by hand.

* ``docs/api/generated/<module>.rst``: one page per public module of the engine (every package's
  ``__init__`` and shared module that defines ``__all__``): an autosummary table of exactly its ``__all__``
  and the numpydoc docstring of each name. A name re-exported from another public module is listed with a
  link to the page of the module that defines it (``engine.load_rated`` -> ``engine.io.load_rated``).
* ``docs/_generated/cli.rst.inc``: the ``opstudio`` reference, every command's ``--help`` as argparse prints it,
  from :data:`engine.cli.COMMANDS` (included by ``docs/cli.md``).

Files are rewritten only when their text changes, so an incremental build re-reads only what changed.
``tests/test_docs.py`` checks the built inventory against every ``__all__``.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import logging
import os
import pkgutil
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1]
API_DIR = DOCS / "api" / "generated"
CLI_FILE = DOCS / "_generated" / "cli.rst.inc"


def public_modules() -> list[str]:
    """``engine``, its public packages and modules, and their public subpackages, that define ``__all__``."""
    import engine

    found = ["engine"]

    def walk(package) -> None:
        for info in pkgutil.iter_modules(package.__path__, package.__name__ + "."):
            if info.name.rsplit(".", 1)[1].startswith("_") or info.name.endswith("__main__"):
                continue
            named = getattr(package, "__public_modules__", ())
            if package.__name__ != "engine" and not info.ispkg and info.name.rsplit(".", 1)[1] not in named:
                continue  # inside a package only its subpackages' fronts and the modules it names are public
            module = importlib.import_module(info.name)
            if hasattr(module, "__all__"):
                found.append(info.name)
            if info.ispkg:
                walk(module)

    walk(engine)
    return found


def _kind(obj) -> str:
    if inspect.isclass(obj):
        return "autoexception" if issubclass(obj, BaseException) else "autoclass"
    if inspect.isfunction(obj) or inspect.isbuiltin(obj) or callable(obj) and hasattr(obj, "__wrapped__"):
        return "autofunction"
    return "autodata"


def homes(modules: list[str]) -> dict[tuple[str, str], str]:
    """For each (module, name) exported, the module whose page documents it in full.

    A class or function is documented by the deepest public module that exports it and that its
    ``__module__`` lies in; constants are documented where they are exported.
    """
    out = {}
    for mod in modules:
        module = importlib.import_module(mod)
        for name in module.__all__:
            obj = getattr(module, name)
            home = mod
            defined = getattr(obj, "__module__", None) if _kind(obj) != "autodata" else None
            if defined:
                owners = [
                    m
                    for m in modules
                    if (defined == m or defined.startswith(m + "."))
                    and name in importlib.import_module(m).__all__
                    and getattr(importlib.import_module(m), name) is obj
                ]
                if owners:
                    home = max(owners, key=len)
            out[mod, name] = home
    return out


def module_page(mod: str, home: dict[tuple[str, str], str]) -> str:
    module = importlib.import_module(mod)
    names = list(module.__all__)
    title = mod
    lines = [title, "=" * len(title), "", f".. automodule:: {mod}", "", f".. currentmodule:: {mod}", ""]
    lines += [
        f"Public names (``{mod}.__all__``, {len(names)})",
        "-" * 60,
        "",
        ".. autosummary::",
        "   :nosignatures:",
        "",
    ]
    for name in names:
        where = home[mod, name]
        if where == mod:
            lines.append(f"   {name}")
        else:  # autosummary wants names below the current module relative to it
            lines.append(f"   ~{where.removeprefix(mod + '.')}.{name}")
    lines.append("")
    own = [n for n in names if home[mod, n] == mod and n != "__version__"]
    if own:
        lines += ["Reference", "-" * 60, ""]
    for name in own:
        kind = _kind(getattr(module, name))
        lines.append(f".. {kind}:: {name}")
        if kind == "autoclass":
            lines.append("   :members:")
        if kind == "autodata":
            lines.append("   :no-value:")
        lines.append("")
    if "__version__" in names:
        lines += [
            ".. py:data:: __version__",
            "   :type: str",
            "",
            f"   The version of the package ({module.__version__}).",
            "",
        ]
    return "\n".join(lines)


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def cli_reference() -> str:
    """Every ``opstudio`` command's ``--help``, in the order of :data:`engine.cli.COMMANDS`, at 100 columns."""
    from engine import cli

    saved = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "100"
    try:
        parser = cli._parser()
        lines = ["``opstudio``", "-" * 40, "", ".. code-block:: text", ""]
        lines += ["   " + line for line in parser.format_help().splitlines()] + [""]
        for name, command in cli.COMMANDS.items():
            sub = _subparsers(parser)[name]
            heading = f"``opstudio {name}``"
            lines += [
                f".. _cli-{name}:",
                "",
                heading,
                "-" * len(heading),
                "",
                command.help[0].upper() + command.help[1:] + ".",
                "",
            ]
            lines += [".. code-block:: text", ""] + ["   " + line for line in sub.format_help().splitlines()] + [""]
            for part, subsub in _subparsers(sub).items():
                heading = f"``opstudio {name} {part}``"
                lines += [f".. _cli-{name}-{part}:", "", heading, "~" * len(heading), ""]
                lines += (
                    [".. code-block:: text", ""] + ["   " + line for line in subsub.format_help().splitlines()] + [""]
                )
        return "\n".join(lines)
    finally:
        if saved is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = saved


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def generate(app=None) -> None:
    modules = public_modules()
    home = homes(modules)
    for old in API_DIR.glob("*.rst"):
        if old.stem not in modules:
            old.unlink()
    for mod in modules:
        _write(API_DIR / f"{mod}.rst", module_page(mod, home))
    _write(CLI_FILE, cli_reference())


class _PendingPages(logging.Filter):
    """Drops "toctree glob pattern didn't match" for the pages named in ``opstudio_pending_pages`` only.

    Sphinx gives that warning no type, so ``suppress_warnings`` cannot silence it.
    """

    def __init__(self, app) -> None:
        super().__init__()
        self.app = app

    def filter(self, record: logging.LogRecord) -> bool:
        if "didn't match any documents" not in str(record.msg) or not record.args:
            return True
        pattern = str(record.args[0] if isinstance(record.args, tuple) else record.args).rstrip("*")
        current = self.app.env.docname if self.app.env else ""
        docname = os.path.normpath(os.path.join(os.path.dirname(current), pattern)).replace(os.sep, "/")
        return docname not in self.app.config.opstudio_pending_pages


def setup(app):
    app.add_config_value("opstudio_pending_pages", [], "env")
    app.connect("builder-inited", generate, priority=400)
    logging.getLogger("sphinx.sphinx.directives.other").addFilter(_PendingPages(app))
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
