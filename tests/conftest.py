import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
SHARED = ROOT.parent / "shared"

import os  # noqa: E402
import tempfile  # noqa: E402

# the dashboard opens the workspace (OPSTUDIO_HOME) on every run: tests, their AppTest sessions and the servers they
# start never touch the developer's own workspace (a test that needs its own sets the variable itself)
os.environ.setdefault("OPSTUDIO_HOME", tempfile.mkdtemp(prefix="opstudio-tests-"))
# OpenMP on one thread in the test processes (and the servers and command lines they start): the oracles train
# hundreds of small LightGBM, XGBoost and scikit-learn models, and OpenMP's spinning threads lose the two cores to the
# other worker: tests/engine/qwyc/test_evaluator.py and test_models.py took 102 s with the default threads and 43 s on
# one, beside a running suite. Each oracle compares with the library's own predict of the model it trained, so the
# number of threads a library trains with changes nothing the tests assert.
os.environ.setdefault("OMP_NUM_THREADS", "1")

import pytest  # noqa: E402
from hypothesis import settings  # noqa: E402

# CI replays the same examples on every run (a failure there is reproducible, never a coin flip);
# developers' runs keep exploring new ones. No deadlines: a busy 2-core machine is not a failure.
settings.register_profile("ci", derandomize=True, deadline=None)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")

from tests.apptest_setup import component_manifests_scanned_once, legacy_page_folders_off  # noqa: E402

legacy_page_folders_off()  # AppTest runs pages as the server does
component_manifests_scanned_once()  # and scans the installed packages for components once, as the server does


# Tiers (pyproject.toml [tool.pytest.ini_options] markers), applied by path so that new files get them:
#   tests/e2e/**                         -> browser  (Playwright + Chromium)
#   *spark* files, the `spark` fixture   -> spark    (a local JVM)
#   tests/test_packaging.py              -> packaging (a wheel in a fresh venv)
#   tests/test_docs.py                   -> docs     (the Sphinx site built with -W)
# `slow` is marked on the tests themselves. The fast loop (CONTRIBUTING.md):
#   python -m pytest -m "not slow and not spark and not browser and not packaging and not docs"
# Under pytest-xdist (`-n 2 --dist loadgroup`) the Spark tests share one worker (one JVM: 0.8 GB and a 10 s start
# each), and so do the tests of each file in _ONE_WORKER, whose module fixture builds something slow once (each worker
# that ran a test of the file built it again). The browser tests are not grouped: as one group they were a 7-minute
# chain on one worker and made the README's command 95 s longer (CI, 2026-11-28); each worker starts its own server
# and Chromium instead. xdist hands out the units with the most tests first (--loadscope-reorder, its default), so
# the long groups start at once and the single tests fill in beside them.
_TIER_BY_FILE = {"test_packaging.py": "packaging", "test_docs.py": "docs"}
#: files whose module fixture is built once, on one worker: the wheel in a fresh venv, the site, an empty Numba cache
_ONE_WORKER = {"tests/test_packaging.py", "tests/test_docs.py", "tests/engine/test_warmup.py"}


def _relative(item) -> str:
    return Path(str(item.path)).resolve().relative_to(ROOT).as_posix()


def _tiers(item) -> list[str]:
    rel = _relative(item)
    tiers = []
    if rel.startswith("tests/e2e/"):
        tiers.append("browser")
    if "spark" in Path(rel).name or "spark" in getattr(item, "fixturenames", ()):
        tiers.append("spark")
    if rel.count("/") == 1 and Path(rel).name in _TIER_BY_FILE:
        tiers.append(_TIER_BY_FILE[Path(rel).name])
    return tiers


def _group(item) -> str | None:
    """The xdist group of ``item``: its worker-sharing tier, its file's, or None (any worker).

    By marker, after the path rules added theirs: a Spark case of a test parametrised over the backends carries the
    ``spark`` mark of its parameter (tests/engine/backends/conftest.py) and must share the one JVM too.
    """
    if item.get_closest_marker("spark") is not None:
        return "spark"
    rel = _relative(item)
    return rel if rel in _ONE_WORKER else None


@pytest.hookimpl(tryfirst=True)  # before xdist's worker reads the groups into the test ids (it runs first otherwise)
def pytest_collection_modifyitems(config, items):
    for item in items:
        for tier in _tiers(item):
            item.add_marker(getattr(pytest.mark, tier))
        group = _group(item)
        if group:
            item.add_marker(pytest.mark.xdist_group(group))
