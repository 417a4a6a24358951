"""engine/warmup.py: after the warm-up, the pages' first visits compile nothing (Numba reads every kernel from its cache).

The oracle is Numba's own bookkeeping: every ``cache=True`` dispatcher counts, per signature, the versions it read
from the on-disk cache and those it had to compile. Two fresh processes share an empty cache directory: the first
runs the warm-up (``python -m engine.warmup``'s ``main``) and must have compiled, the second opens the Early exit page and the Operating point page (AppTest, the
shipped samples, default settings) and reports its dispatchers' counts.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

COUNT = """
import json
from numba.core.registry import CPUDispatcher
import engine.pn.kernels, engine.qwyc.evaluator, engine.qwyc.kernels, engine.qwyc.policy, engine.qwyc.scan
counts = {}
for module in (engine.pn.kernels, engine.qwyc.evaluator, engine.qwyc.kernels, engine.qwyc.policy, engine.qwyc.scan):
    for name, obj in vars(module).items():
        if isinstance(obj, CPUDispatcher) and (obj._cache_hits or obj._cache_misses):
            counts[f"{module.__name__}.{name}"] = [sum(obj._cache_hits.values()), sum(obj._cache_misses.values())]
print(json.dumps(counts))
"""

WARM_UP = "import engine.warmup\nassert engine.warmup.main() == 0\n" + COUNT

PAGES = (
    """
from streamlit.testing.v1 import AppTest

at = AppTest.from_file("app.py", default_timeout=600)
at.run()
for page in ("pages/early_exit.py", "pages/operating_point.py"):
    at.switch_page(page).run()
    assert not at.exception, (page, at.exception)
"""
    + COUNT
)


def run(args: list[str], cache: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "OPSTUDIO_WARMUP": "0", "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)


def counts(out: subprocess.CompletedProcess) -> dict[str, list[int]]:
    """{dispatcher: [versions read from the cache, versions compiled]} printed by ``COUNT``."""
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_after_the_warm_up_the_pages_compile_nothing(tmp_path):
    warm = run(["-c", WARM_UP], tmp_path)
    assert "compiled kernels cached" in warm.stderr, warm.stderr
    # the counts tell a compile from a cache read: the warm-up, on an empty cache, compiled both families
    compiled_first = {n for n, (_, misses) in counts(warm).items() if misses}
    assert any(n.startswith("engine.qwyc.scan") for n in compiled_first)
    assert any(n.startswith("engine.pn") for n in compiled_first)

    on_pages = counts(run(["-c", PAGES], tmp_path))
    compiled = {name: c for name, c in on_pages.items() if c[1]}
    assert not compiled, f"compiled on the pages' first visits despite the warm-up: {compiled}"
    # the pages did call compiled kernels of both families (read from the cache, not skipped)
    assert any(n.startswith("engine.qwyc.scan") for n in on_pages) and any(n.startswith("engine.pn") for n in on_pages)


def test_a_failing_warm_up_says_so_in_one_line_and_exits_0(tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    code = (
        "import engine.warmup as w, sys\n"
        "def broken():\n    raise OSError('no space left on device')\n"
        "w.warm_kernels = broken\nsys.exit(w.main())"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0
    assert out.stderr.strip().splitlines() == ["opstudio warm-up skipped: OSError('no space left on device')"]
