"""Every Examples section of the engine's docstrings runs as a doctest (on the shipped samples or tiny arrays).

Collected from the source: a module whose docstrings hold ``>>>`` is run with :mod:`doctest` from the top of the
checkout (where ``sample_data/`` is), so an example that drifts from the code fails here.
"""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def modules_with_examples() -> list[str]:
    out = []
    for path in sorted((ROOT / "engine").rglob("*.py")):
        if ">>> " in path.read_text():
            parts = path.relative_to(ROOT).with_suffix("").parts
            out.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return out


def test_the_main_entry_points_have_examples():
    # the names `engine` re-exports are the first a newcomer reads: each shows how it is called
    import engine

    without = [
        name
        for name in engine.__all__
        if name != "__version__"
        and callable(getattr(engine, name))
        and not isinstance(getattr(engine, name), type)
        and "Examples\n" not in (getattr(engine, name).__doc__ or "")
    ]
    assert not without, f"add an Examples section to {without}"


@pytest.mark.parametrize("module", modules_with_examples())
def test_examples(module, monkeypatch):
    monkeypatch.chdir(ROOT)
    mod = importlib.import_module(module)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    tests = [t for t in finder.find(mod, module) if t.examples]
    assert tests, f"{module} has '>>> ' but no doctest was found"
    for test in tests:
        runner.run(test, clear_globs=True)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {module} (output above)"
