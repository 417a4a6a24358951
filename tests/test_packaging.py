"""The wheel: built from the checkout, installed in a fresh environment, used from another directory.

It must carry the dashboard and the samples (inside ``engine``, adding no other top-level name)
so that ``opstudio app`` serves every page and the CLI finds samples by name.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import urllib.request
import zipfile
from pathlib import Path

import pytest

from tests.e2e.conftest import free_port, wait_healthy

ROOT = Path(__file__).resolve().parents[1]

PAGES_RENDER = """
from streamlit.runtime.pages_manager import PagesManager
init = PagesManager.__init__
def legacy_off(self, *args, **kwargs):  # as tests/conftest.py: AppTest turns the pages/ folder's legacy mode on
    PagesManager.uses_pages_directory = False
    init(self, *args, **kwargs)
PagesManager.__init__ = legacy_off
from engine.resources import dashboard_dir
from streamlit.testing.v1 import AppTest
import engine
at = AppTest.from_file(str(dashboard_dir() / "app.py"), default_timeout=300)
at.run()
assert not at.exception, at.exception
from engine.pages import PAGES
for page in PAGES:
    at.switch_page(page.script).run()
    assert not at.exception, (page, at.exception)
print(engine.__file__)
"""


def _source_copy(tmp: Path) -> Path:
    """The checkout's tracked files (as they are on disk) in a folder of their own: the build neither sees nor races
    what the other tests write into the checkout meanwhile (bytecode, screenshots, the docs' build)."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=False)
    if listed.returncode != 0:  # not a git checkout (an unpacked sdist): build it where it is
        return ROOT
    source = tmp / "source"
    for name in listed.stdout.decode().split("\0"):
        if name and (ROOT / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    return source


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("wheel")
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(_source_copy(tmp)), "--no-deps", "-q", "-w", str(tmp / "dist")],
        timeout=600,
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    wheel = next((tmp / "dist").glob("*.whl"))
    venv = tmp / "venv"
    # the dependencies come from this environment; the package itself only from the wheel
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    # this environment may itself be a virtualenv (CI): let the new one see its packages through a plain path
    # line (no .pth files of ours are run there, so the checkout's editable install stays out of sight)
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    parents = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    # an environment layered on another one (a path line to a parent's site-packages) is seen through as well
    parents |= {p for p in sys.path if Path(p).name in ("site-packages", "dist-packages") and Path(p).is_dir()}
    Path(site, "parent_environment.pth").write_text("\n".join(sorted(parents)) + "\n")
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--no-deps", "--force-reinstall", str(wheel)],
        check=True,
        timeout=300,
        capture_output=True,
    )
    elsewhere = tmp / "elsewhere"
    elsewhere.mkdir()
    return wheel, venv, elsewhere


def test_the_wheel_adds_only_engine_to_site_packages(installed):
    wheel, _, _ = installed
    names = zipfile.ZipFile(wheel).namelist()
    top = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert top == {"engine"}
    for needed in (
        "engine/_dashboard/app.py",
        "engine/_dashboard/pages/operating_point.py",
        "engine/_dashboard/views/forms/rated.py",
        "engine/_dashboard/sample_data/synthetic_rare_events.csv.gz",
    ):
        assert needed in names


def test_the_wheel_carries_every_shipped_sample(installed):
    from engine.io import SAMPLES

    names = set(zipfile.ZipFile(installed[0]).namelist())
    missing = [s.file for s in SAMPLES.values() if f"engine/_dashboard/sample_data/{s.file}" not in names]
    assert not missing, f"add their pattern to [tool.setuptools.package-data]: {missing}"


def test_the_wheel_carries_every_package_of_the_checkout(installed):
    # a subpackage missing from pyproject.toml's list works in the checkout and breaks every installed copy
    wheel, _, _ = installed
    names = set(zipfile.ZipFile(wheel).namelist())
    for init in sorted((ROOT / "engine").rglob("__init__.py")):
        assert f"{init.relative_to(ROOT).as_posix()}" in names, (
            f"{init.parent.relative_to(ROOT)} is not in pyproject.toml"
        )
    for init in sorted((ROOT / "views").rglob("__init__.py")):
        assert f"engine/_dashboard/{init.relative_to(ROOT).as_posix()}" in names
    from engine.pages import PAGES

    for page in PAGES:
        assert f"engine/_dashboard/{page.script}" in names, f"{page.script} is not in the wheel"


def test_every_page_renders_from_the_installed_wheel(installed):
    _, venv, elsewhere = installed
    run = subprocess.run(
        [str(venv / "bin" / "python"), "-c", PAGES_RENDER],
        cwd=elsewhere,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONPATH": ""},
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert str(venv) in run.stdout  # the wheel's engine, not the checkout's


def test_cli_finds_samples_by_name_from_another_directory(installed):
    _, venv, elsewhere = installed
    run = subprocess.run(
        [str(venv / "bin" / "opstudio"), "sweep", "--sample", "synthetic", "--target", "0.3", "--json"],
        cwd=elsewhere,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": ""},
    )
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["operating_points"][0]["threshold"] > 0


def test_opstudio_app_serves_from_another_directory(installed):
    _, venv, elsewhere = installed
    port = free_port()
    proc = subprocess.Popen(
        [str(venv / "bin" / "opstudio"), "app", "--headless", "--port", str(port)],
        cwd=elsewhere,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "PYTHONPATH": ""},
    )
    try:
        if not wait_healthy(f"http://127.0.0.1:{port}", proc, timeout=90):
            pytest.fail("the installed app did not become healthy")
        assert b"<html" in urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5).read().lower()
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_the_wheel_carries_the_licence_the_metadata_and_one_version(installed):
    import engine

    wheel, venv, elsewhere = installed
    archive = zipfile.ZipFile(wheel)
    names = archive.namelist()
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names), "LICENSE is not in the wheel"
    assert "engine/py.typed" in names
    # one version: engine.__version__ is what pyproject.toml reads (dynamic), what the wheel is named and says
    assert wheel.name.startswith(f"operating_point_studio-{engine.__version__}-")
    metadata = archive.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    assert f"\nVersion: {engine.__version__}\n" in metadata
    assert "License-Expression: MIT" in metadata
    assert "Classifier: Typing :: Typed" in metadata and "Project-URL: Documentation" in metadata
    for extra in ("test", "spark", "docs", "dev"):
        assert f"Provides-Extra: {extra}" in metadata
    pyspark = [line for line in metadata.splitlines() if line.startswith("Requires-Dist: pyspark")]
    assert pyspark and all('extra == "spark"' in line for line in pyspark), "pyspark belongs to the spark extra only"
    run = subprocess.run(
        [str(venv / "bin" / "opstudio"), "--version"], cwd=elsewhere, capture_output=True, text=True, timeout=120
    )
    assert run.stdout.strip() == f"opstudio {engine.__version__}"
    from engine.reporting import ENGINE_VERSION

    assert engine.__version__ == ENGINE_VERSION


def test_the_installed_wheel_creates_and_upgrades_a_workspace(installed, tmp_path):
    # the Alembic migrations ship inside engine.workspace: `opstudio workspace upgrade` works from a wheel
    wheel, venv, elsewhere = installed
    names = set(zipfile.ZipFile(wheel).namelist())
    for path in sorted((ROOT / "engine" / "workspace" / "migrations").rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            assert f"{path.relative_to(ROOT).as_posix()}" in names, f"{path.name} is not in the wheel"
    env = {**os.environ, "PYTHONPATH": "", "OPSTUDIO_HOME": str(tmp_path / "home")}
    for argv in (["workspace", "upgrade"], ["workspace", "info", "--json"]):
        run = subprocess.run(
            [str(venv / "bin" / "opstudio"), *argv], cwd=elsewhere, capture_output=True, text=True, timeout=300, env=env
        )
        assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["schema_version"] == "0002"
