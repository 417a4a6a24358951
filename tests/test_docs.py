"""The documentation site: built from scratch with warnings as errors, every page reachable from the index, every
public name of every package documented, the pages' own {doctest} blocks run.

Marked ``docs`` by tests/conftest.py (needs the ``docs`` extra: sphinx, myst-parser, numpydoc, furo).
"""

from __future__ import annotations

import ast
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"

pytest.importorskip("sphinx")

# the build is 15-20 s on a quiet machine and minutes under load: the suite-wide 300 s timeout is too tight for it
pytestmark = pytest.mark.timeout(1200)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """``sphinx-build -W --keep-going -b html docs OUT`` from scratch (a fresh doctree cache): the CI build."""
    out = tmp_path_factory.mktemp("site")
    run = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", "-d", str(out / "doctrees"),
         str(DOCS), str(out / "html")],
        cwd=ROOT, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-6000:]
    return out


def public_modules_in_source() -> dict[str, list[str]]:
    """Every public module of the engine that defines ``__all__``, read from the files (not from the docs' own list).

    Public: ``engine``, its modules and packages whose name has no leading underscore, their subpackages, and the
    modules a package names in its ``__public_modules__``.
    """

    def assigned(path: Path, name: str):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == name for t in node.targets):
                return ast.literal_eval(node.value)
        return None

    found = {}
    for path in sorted((ROOT / "engine").rglob("*.py")):
        rel = path.relative_to(ROOT).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        elif len(parts) > 2 and parts[-1] not in (assigned(path.parent / "__init__.py", "__public_modules__") or ()):
            continue  # a module inside a package: the package's __init__ is its front, and the modules it names
        if any(p.startswith("_") for p in parts) or parts[-1] == "__main__":
            continue
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__all__" for t in node.targets):
                found[".".join(parts)] = ast.literal_eval(node.value)
    return found


def inventory(built) -> dict[str, dict]:
    from sphinx.util.inventory import InventoryFile

    with open(built / "html" / "objects.inv", "rb") as f:
        return InventoryFile.load(f, "", lambda base, uri: uri)


def test_every_public_name_of_every_package_has_an_entry(built):
    import importlib

    inv = inventory(built)
    documented = {name for kind, entries in inv.items() if kind.startswith("py:") for name in entries}
    modules = public_modules_in_source()
    assert {"engine", "engine.pn", "engine.io", "engine.qwyc", "engine.qwyc.formats"} <= set(modules)
    missing = []
    for mod, names in modules.items():
        assert mod in documented, f"{mod} has no page in the API reference"
        module = importlib.import_module(mod)
        for name in names:
            if f"{mod}.{name}" in documented:
                continue
            # a name re-exported from another public module is documented there (the page links to it)
            obj = getattr(module, name)
            elsewhere = [
                f"{m}.{name}"
                for m in modules
                if f"{m}.{name}" in documented and getattr(importlib.import_module(m), name, None) is obj
            ]
            if not elsewhere:
                missing.append(f"{mod}.{name}")
    assert not missing, f"public names without a docs entry: {missing}"


def test_the_api_pages_list_exactly_each_all(built):
    # the autosummary table of each package page holds its __all__, no more, no less
    for mod, names in public_modules_in_source().items():
        text = (DOCS / "api" / "generated" / f"{mod}.rst").read_text()
        table = text.split(".. autosummary::", 1)[1].split("\n\n", 2)[1]
        listed = [line.strip().split(".")[-1] for line in table.splitlines() if line.strip()]
        assert listed == names, mod


def test_every_page_is_reachable_from_the_index(built):
    with open(built / "doctrees" / "environment.pickle", "rb") as f:
        env = pickle.load(f)
    seen, todo = set(), ["index"]
    while todo:
        doc = todo.pop()
        if doc not in seen:
            seen.add(doc)
            todo.extend(env.toctree_includes.get(doc, []))
    unreachable = sorted(set(env.found_docs) - seen)
    assert not unreachable, f"pages not reachable from the index's toctrees: {unreachable}"
    for page in ("getting-started", "cli", "security", "extending", "contributing", "api/index", "methods/index"):
        assert page in seen


def test_the_cli_reference_has_every_command(built):
    from engine.cli import COMMANDS

    html = (built / "html" / "cli.html").read_text()
    for name, command in COMMANDS.items():
        assert f"usage: opstudio {name}" in html, name
        for part in command.parts or {}:
            assert f"usage: opstudio {name} {part}" in html, (name, part)


def test_the_pages_doctest_blocks_pass(built):
    run = subprocess.run(
        [sys.executable, "-m", "sphinx", "-q", "-b", "doctest", "-d", str(built / "doctrees"), str(DOCS),
         str(built / "doctest")],
        cwd=ROOT, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert run.returncode == 0, (run.stdout + run.stderr)[-6000:]
    assert "0 failures in tests" in (built / "doctest" / "output.txt").read_text()
