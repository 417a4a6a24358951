"""The test tiers of tests/conftest.py reach the runner: markers by path, and the groups xdist schedules by.

Under ``-n 2 --dist loadgroup`` (the README's command) xdist sends the tests of one ``xdist_group`` to one worker by
reading the group from the test's id (``...::test@spark``). If that tag is missing, nothing fails: each worker starts
its own JVM, server, Chromium, wheel and site, and the run is minutes longer (pytest 9.2 with pytest-xdist 3.8 did
exactly that, silently).
"""

import subprocess
import sys
import textwrap

import pytest


def test_every_grouped_test_of_this_run_carries_its_group_in_its_id(request):
    if not getattr(request.config.option, "loadgroup", False):
        pytest.skip("not run under --dist loadgroup (the README's command)")
    grouped = [item for item in request.session.items if item.get_closest_marker("xdist_group")]
    untagged = [item.nodeid for item in grouped if "@" not in item.nodeid.rsplit("::", 1)[-1]]
    assert not untagged, f"{len(untagged)} of {len(grouped)} grouped tests are untagged, e.g. {untagged[:3]}"


def test_a_group_added_by_the_tiers_runs_on_one_worker(tmp_path):
    """A pytest run of its own: the tier hook's groups (added at collection, as tests/conftest.py does) hold."""
    (tmp_path / "conftest.py").write_text(
        textwrap.dedent(
            """
            import os
            import pytest

            @pytest.hookimpl(tryfirst=True)
            def pytest_collection_modifyitems(config, items):
                for item in items:
                    if item.name.startswith("test_g"):
                        item.add_marker(pytest.mark.xdist_group("g"))

            @pytest.fixture
            def ran(request):
                with open("ran.txt", "a") as f:
                    f.write(f"{request.node.name[5]} {os.environ['PYTEST_XDIST_WORKER']}\\n")
            """
        )
    )
    tests = "".join(f"def test_{g}{i}(ran):\n    pass\n\n" for g in "gx" for i in range(4))
    (tmp_path / "test_groups.py").write_text(tests)
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "2", "--dist", "loadgroup", "-p", "no:cacheprovider", "-q"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    ran = [line.split() for line in (tmp_path / "ran.txt").read_text().splitlines()]
    assert len(ran) == 8 and len({worker for group, worker in ran if group == "g"}) == 1, ran
