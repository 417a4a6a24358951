"""The Streamlit internals views/housekeeping.py reaches into are still there (no browser, no server).

Housekeeping reaps the sessions Streamlit only hides when their reconnect window ends; no public
API exposes them, so it walks ``Runtime._session_mgr._session_storage._cache`` and schedules the
shutdown on ``Runtime._get_async_objs().eventloop``. When a Streamlit release renames any of these,
housekeeping silently does nothing but trim memory; this test fails instead. It runs in a child
process because a constructed ``Runtime`` is a process-wide singleton that AppTest must not see.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

CHECK = textwrap.dedent("""
    import dataclasses
    from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage
    from streamlit.runtime.memory_session_storage import MemorySessionStorage
    from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager
    from streamlit.runtime.runtime import AsyncObjects, Runtime, RuntimeConfig
    from streamlit.runtime.session_manager import SessionInfo

    from views import housekeeping

    # what reap_expired_sessions schedules on: the runtime's event loop
    assert callable(getattr(Runtime, "_get_async_objs", None)), "Runtime._get_async_objs is gone"
    assert "eventloop" in AsyncObjects._fields, "AsyncObjects.eventloop is gone"
    assert "session" in {f.name for f in dataclasses.fields(SessionInfo)}, "SessionInfo.session is gone"

    # a storage whose entries expire at once, behind a real runtime
    storage = MemorySessionStorage(maxsize=16, ttl_seconds=0)
    Runtime(RuntimeConfig(script_path="app.py",
                          media_file_storage=MemoryMediaFileStorage("/media"),
                          uploaded_file_manager=MemoryUploadedFileManager("/upload"),
                          session_storage=storage))
    found = housekeeping._expired_sessions_cache()
    assert found is not None, "the runtime's session storage cache is no longer reachable"
    runtime, cache = found
    assert cache is storage._cache
    assert housekeeping.connected_sessions() == 0, "the session manager's count of connected sessions is gone"

    class Session:
        id = "s1"
        closed = False
        def shutdown(self):
            self.closed = True

    session = Session()
    cache["s1"] = SessionInfo(client=None, session=session)
    expired = cache.expire()
    assert [key for key, _ in expired] == ["s1"], expired
    for _, info in expired:  # what the janitor does with each expired entry
        info.session.shutdown()
    assert session.closed

    # a reaped session's results are dropped from its state, whoever still holds the session object
    from streamlit.runtime.app_session import AppSession
    from streamlit.runtime.state.session_state import SessionState
    import inspect
    assert "self._session_state = SessionState()" in inspect.getsource(AppSession.__init__), \
        "AppSession._session_state is gone"
    session._session_state = SessionState()
    session._session_state["_memo"] = {"result": [1.0] * 1000}
    session._session_state["_inputs"] = {"upload": b"rows"}
    housekeeping.drop_session_state(session)
    assert not session._session_state._keys()
    print("ok")
""")


def test_streamlit_internals_used_by_housekeeping_are_present():
    out = subprocess.run(
        [sys.executable, "-c", CHECK],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert out.returncode == 0 and out.stdout.strip().endswith("ok"), out.stderr[-2000:]


def test_the_allocator_is_tuned_unless_malloc_variables_are_set():
    check = "from views import housekeeping; print(housekeeping.tune_allocator())"
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    for extra, expected in (({}, "True"), ({"MALLOC_ARENA_MAX": "2"}, "False")):
        out = subprocess.run(
            [sys.executable, "-c", check], cwd=ROOT, capture_output=True, text=True, timeout=120, env={**env, **extra}
        )
        assert out.stdout.strip() == expected, (extra, out.stderr[-2000:])


def test_trim_heap_gives_back_freed_pages_in_the_middle_of_the_heap():
    """The kernel's own count (VmRSS) is the oracle: 192 MB freed below a live block stay resident until the trim."""
    child = textwrap.dedent(
        """
        import sys
        from views.housekeeping import trim_heap

        def rss():
            status = open("/proc/self/status").read()
            return int(status.split("VmRSS:")[1].split()[0]) // 1024

        if "glibc" not in " ".join(__import__("platform").libc_ver()):
            print("skip"); sys.exit()
        blocks = [bytearray(64 * 1024) for _ in range(3072)]  # on the heap: below glibc's mmap threshold
        fence = bytearray(64 * 1024)  # keeps the freed blocks from being the heap's top, which free() trims
        before = rss()
        del blocks
        freed = rss()
        trim_heap()
        print(before, freed, rss())
        """
    )
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", child], cwd=ROOT, capture_output=True, text=True, timeout=120, env=env)
    if out.stdout.strip() == "skip":
        pytest.skip("not glibc: other allocators return freed pages by themselves")
    before, freed, after = map(int, out.stdout.split())
    assert freed > before - 64, (before, freed, after)  # free() alone keeps them
    assert after < freed - 150, (before, freed, after)  # the trim gives them back


def test_an_ended_sessions_background_job_is_cancelled_or_stops_at_its_next_progress_report():
    from concurrent.futures import CancelledError, Future

    from streamlit.runtime.state.session_state import SessionState

    from views import housekeeping
    from views.state import _Job

    queued, running = _Job(Future(), "queued"), _Job(Future(), "running")
    running.future.set_running_or_notify_cancel()
    running.update(1, 10)

    class Session:
        _session_state = SessionState()

    Session._session_state["_jobs"] = {("a",): queued, ("b",): running}
    housekeeping.drop_session_state(Session)
    assert queued.future.cancelled()
    with pytest.raises(CancelledError):
        running.update(2, 10)
    assert not Session._session_state._keys()


def test_the_warm_up_runs_in_its_own_process_at_the_lowest_priority(monkeypatch):
    from views import housekeeping

    started = []
    real_popen = subprocess.Popen

    def popen(cmd, **kwargs):  # the warm-up's command, run as a child that only reports its niceness
        started.append((cmd, kwargs["cwd"]))
        return real_popen(
            [sys.executable, "-c", "import os, time; time.sleep(0.5); print(os.nice(0))"],
            stdout=subprocess.PIPE,
            text=True,
        )

    monkeypatch.setattr(housekeeping.subprocess, "Popen", popen)
    monkeypatch.setenv("OPSTUDIO_WARMUP", "0")
    assert housekeeping.start_warmup() is None and not started  # switched off
    monkeypatch.delenv("OPSTUDIO_WARMUP")
    proc = housekeeping.start_warmup()
    assert started == [([sys.executable, "-m", "engine.warmup"], ROOT)]
    out, _ = proc.communicate(timeout=30)
    assert int(out) == 19  # lowered by the server right after the start (the warm-up also lowers itself)


BLAS = textwrap.dedent("""
    import numpy, numpy.linalg, os, sys
    from threadpoolctl import threadpool_info
    from views import housekeeping

    applied = housekeeping.limit_blas_threads()
    import scipy.linalg  # SciPy's own OpenBLAS, loaded after the limit: the variables cover it
    threads = sorted({i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"})
    print(applied, os.environ.get("OPENBLAS_NUM_THREADS"), threads)
""")


@pytest.mark.parametrize("preset, expected", [(None, "True 1 [1]"), ("2", "False 2 ")])
def test_blas_runs_on_one_thread_in_the_server_unless_the_environment_says(preset, expected):
    import os

    env = {
        k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS")
    }
    env.pop("VECLIB_MAXIMUM_THREADS", None)
    if preset is not None:
        env["OPENBLAS_NUM_THREADS"] = preset
    out = subprocess.run([sys.executable, "-c", BLAS], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.startswith(expected), out.stdout  # a preset count is left alone (OpenBLAS caps it at the cores)


def test_background_work_that_outlives_its_session_gives_its_memory_back_at_the_next_pass(monkeypatch):
    """A job cancelled after its session was reaped holds its arrays in a reference cycle (its traceback's frames ->
    job.update -> job -> future -> exception); the janitor's next pass collects them, although it reaped nothing."""
    import gc
    import threading
    import weakref

    import numpy as np

    from views import housekeeping, state

    monkeypatch.setattr(housekeeping, "reap_expired_sessions", lambda: 0)
    trims = []
    monkeypatch.setattr(housekeeping, "release_memory", lambda: (trims.append(1), gc.collect()))
    held, started = [], threading.Event()

    def compute(update):
        work = np.ones(1_000_000)
        held.append(weakref.ref(work))
        started.set()
        while True:
            update(1, 2)  # raises CancelledError once the job is cancelled

    state.WORK_ENDED.clear()
    assert not housekeeping.janitor_pass() and not trims  # nothing ended, nothing reaped: no pass work
    gc.disable()  # only the janitor collects here
    try:
        job = state._start(compute, "bootstrap")  # as views.state.background starts it
        assert started.wait(30)
        job.cancelled = True  # what housekeeping.drop_session_state does when the session is reaped
        assert state.WORK_ENDED.wait(30)
        del job
        assert housekeeping.janitor_pass() and trims == [1]
        assert held[0]() is None  # the work's array is gone
        assert not housekeeping.janitor_pass() and trims == [1]  # once
    finally:
        gc.enable()


def test_an_idle_server_empties_its_cache_of_shared_results_once_idle_long_enough(monkeypatch):
    from engine.memory import ByteBudgetCache
    from views import housekeeping, state

    cache = ByteBudgetCache(2**20)
    monkeypatch.setattr(state, "SERVER_CACHE", cache)
    monkeypatch.setattr(housekeeping, "_IDLE_SINCE", [None])
    cache.put(("sample", "synthetic"), b"x" * 1000)
    cache.put(("early exit model", 500, 5), b"y" * 1000)
    release = housekeeping.release_when_idle
    assert release(2, now=0.0, idle_seconds=60) == 0  # sessions connected
    assert release(0, now=10.0, idle_seconds=60) == 0  # idle from now on
    assert release(0, now=69.0, idle_seconds=60) == 0 and len(cache) == 2
    assert release(1, now=75.0, idle_seconds=60) == 0  # someone came back: the idle time starts again
    assert release(0, now=80.0, idle_seconds=60) == 0
    assert release(None, now=500.0, idle_seconds=60) == 0 and len(cache) == 2  # unknown count: keep everything
    assert release(0, now=139.0, idle_seconds=60) == 0
    assert release(0, now=140.0, idle_seconds=60) == 2 and len(cache) == 0
    assert release(0, now=200.0, idle_seconds=60) == 0  # nothing left to drop
    cache.put(("sample", "bank"), b"z")
    assert release(0, now=201.0, idle_seconds=float("inf")) == 0 and len(cache) == 1  # inf keeps the cache
