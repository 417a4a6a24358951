"""engine/warmup.py and ``opstudio warmup``: after the install step, no process compiles on its first call.

The oracle is Numba's own bookkeeping: every ``cache=True`` dispatcher counts, per signature, the versions it read
from the on-disk cache and those it had to compile. Fresh processes share one empty cache directory
(``NUMBA_CACHE_DIR``): the first runs the documented install step, ``opstudio warmup``, and must have compiled every
kernel of the engine; later ones call the public entry points as users do (other sizes and input types than the
warm-up's) or open the pages, and report their dispatchers' counts: nothing may have been compiled.
"""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from engine.warmup import KERNEL_MODULES, kernels

ROOT = Path(__file__).resolve().parents[2]

COUNT = """
import json
from engine.warmup import cache_counts
print(json.dumps(cache_counts()))
"""

#: a user's first calls, in a notebook or a script: other sizes, lists, float32, Fortran order, no optional arguments
FIRST_CALLS = (
    """
import numpy as np
from engine import bootstrap, expected_losses, fit_qwyc, operating_point

rng = np.random.default_rng(7)
f = np.asfortranarray(rng.normal(scale=0.1, size=(2500, 70)).astype(np.float32))
policy = fit_qwyc(f, alpha=0.01)
policy.predict(f)
fit_qwyc(f.tolist(), alpha=0.02, neg_only=True, budget="rationed", bias=0.5)
scores = rng.uniform(size=3000)
labels = (rng.uniform(size=3000) < scores).astype(int)
op = operating_point(scores.tolist(), labels.tolist(), 0.4)
bootstrap(scores, labels, n_boot=30)
bootstrap(scores, labels, np.full(3000, 2.0), n_boot=30, resample="poisson", seed=3)
eta = rng.uniform(size=25)
for loss in ("am", "gmean", "hmean", "gtppr", "auc", "f1"):
    expected_losses(eta.tolist(), loss)
"""
    + COUNT
)

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

#: compiled kernels no engine path calls: the formulation the scan is tested against
NOT_CALLED = {"engine.qwyc.kernels.sorted_exits"}


def run(args: list[str], cache: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "OPSTUDIO_WARMUP": "0", "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=1800)


def counts(out: subprocess.CompletedProcess) -> dict[str, list[int]]:
    """{kernel: [versions read from the cache, versions compiled]} printed by ``COUNT``."""
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """An empty Numba cache after the install step (``opstudio warmup --json``), and what that step reported."""
    cache = tmp_path_factory.mktemp("numba_cache")
    out = run(["-m", "engine.cli", "warmup", "--json"], cache)
    assert out.returncode == 0, out.stderr[-3000:]
    return cache, json.loads(out.stdout)


@pytest.mark.slow  # fresh processes compiling every kernel into an empty cache
def test_the_install_step_compiles_every_kernel_of_the_engine(installed):
    _, report = installed
    assert report["read_from_cache"] == 0  # the cache was empty: everything it ran, it compiled
    missed = set(kernels()) - set(report["compiled_kernels"]) - NOT_CALLED
    assert not missed, f"kernels the warm-up never compiles (a user's first call would): {sorted(missed)}"
    assert report["compiled"] == len(report["compiled_kernels"]) and report["cache"]


@pytest.mark.slow  # fresh processes compiling every kernel into an empty cache
def test_after_the_install_step_a_users_first_calls_compile_nothing(installed):
    cache, _ = installed
    first = counts(run(["-c", FIRST_CALLS], cache))
    compiled = {name: c for name, c in first.items() if c[1]}
    assert not compiled, f"compiled on a first call despite the install step: {compiled}"
    # the calls did run compiled kernels of each family, read from the cache (not skipped)
    for family in ("engine.qwyc._scan", "engine.pn.kernels", "engine.setloss.kernels"):
        assert any(n.startswith(family) and hits for n, (hits, _) in first.items()), family


@pytest.mark.slow  # fresh processes compiling every kernel into an empty cache
def test_after_the_install_step_the_pages_compile_nothing(installed):
    cache, _ = installed
    on_pages = counts(run(["-c", PAGES], cache))
    compiled = {name: c for name, c in on_pages.items() if c[1]}
    assert not compiled, f"compiled on the pages' first visits despite the warm-up: {compiled}"
    assert any(n.startswith("engine.qwyc._scan") for n in on_pages) and any(n.startswith("engine.pn") for n in on_pages)


def test_every_module_with_compiled_kernels_is_warmed():
    """A new module of kernels must be listed in KERNEL_MODULES (and so be compiled by the install step)."""
    defining = {
        ".".join(p.relative_to(ROOT).with_suffix("").parts)
        for p in (ROOT / "engine").rglob("*.py")
        if re.search(r"\bnjit\(", p.read_text()) and p.name != "warmup.py"
    }
    assert defining == set(KERNEL_MODULES)
    assert set(kernels())  # and they were found


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
