"""Server housekeeping: a closed tab's session is shut down when its reconnect window ends, and its memory
goes back to the operating system.

Streamlit keeps a disconnected session for ``server.disconnectedSessionTTL`` seconds so a tab that
lost its connection can resume it. When that time is up the session is only *hidden*: Streamlit's
session storage (a TTL cache) drops the entry on its next write, without shutting the session down,
so its uploaded files and media stay registered. Every :data:`PERIOD_SECONDS` the janitor below
reaps the expired sessions on Streamlit's event loop and shuts each down (what Streamlit does for a
session closed within the window), clears its ``st.session_state`` (:func:`drop_session_state`: Streamlit
keeps the last session it flushed referenced, with every result in it), collects reference cycles, and
asks glibc to return freed heap pages (``malloc_trim``; every script run has its own thread and so its
own malloc arena). At start, :func:`tune_allocator` caps glibc's arenas. With ``OPSTUDIO_MEMORY_REPORT`` set it logs :func:`memory_report` after each reaping.

This reaches into Streamlit's runtime (no public API exposes the session storage); on a Streamlit
whose internals differ it does nothing but trim (``tests/app/test_housekeeping.py`` pins the behaviour).
"""

from __future__ import annotations

import ctypes
import gc
import logging
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from views.settings import env_number

__all__ = [
    "IDLE_RELEASE_SECONDS",
    "PERIOD_SECONDS",
    "connected_sessions",
    "janitor_pass",
    "release_when_idle",
    "drop_session_state",
    "memory_report",
    "reap_expired_sessions",
    "trim_heap",
    "release_memory",
    "start_warmup",
    "limit_blas_threads",
    "tune_allocator",
]

_LOG = logging.getLogger(__name__)


#: how often expired sessions are reaped and freed memory is returned (seconds; the environment
#: variable OPSTUDIO_HOUSEKEEPING_SECONDS overrides it, e.g. in tests)
PERIOD_SECONDS = env_number("OPSTUDIO_HOUSEKEEPING_SECONDS", 30, unit="seconds")

#: seconds without any connected session after which the server's cache of shared results is emptied (environment
#: variable OPSTUDIO_IDLE_RELEASE_SECONDS; ``inf`` keeps it). An idle server gives its memory back to the machine;
#: the next visitor recomputes what it opens (seconds: the shipped samples' models, sweeps and curves).
IDLE_RELEASE_SECONDS = env_number("OPSTUDIO_IDLE_RELEASE_SECONDS", 60, unit="seconds")


def _expired_sessions_cache():
    """Streamlit's (runtime, TTL cache of disconnected sessions), or None when the internals differ."""
    try:
        from streamlit import runtime

        if not runtime.exists():
            return None
        rt = runtime.get_instance()
        return rt, rt._session_mgr._session_storage._cache
    except AttributeError:
        return None


#: sessions shut down at the last reaping: their state is cleared once more at the next one
_SHUT_DOWN: list = []


def drop_session_state(session) -> None:
    """Clear a shut-down session's ``st.session_state`` (its inputs, memos and results).

    Shutting a session down does not free what it holds while anything still references the session
    object, and Streamlit's runtime does: the loop that flushes messages to the browsers keeps the last
    session it flushed in a loop variable (``Runtime._loop_coroutine``) until another session connects,
    so after the last tab closed that session's results stayed in memory. Clearing the state (its values, its
    widgets' callbacks), its fragments and its queued background jobs frees them whoever holds the session.
    """
    from views.state import forget_session

    forget_session(getattr(session, "id", ""))  # the datasets it read may be released (views.state.release_unread)
    state = getattr(session, "_session_state", None)
    if state is not None:
        for job in state["_jobs"].values() if "_jobs" in state else ():  # views.state.background's queued work
            job.future.cancel()
            job.cancelled = True  # a running one stops at its next progress report
        state.clear()
        # widgets' callbacks and the fragments hold the last run's page globals (its data) beyond the state's values
        metadata = getattr(getattr(state, "_new_widget_state", None), "widget_metadata", None)
        if isinstance(metadata, dict):
            metadata.clear()
    fragments = getattr(session, "_fragment_storage", None)
    if fragments is not None:
        fragments.clear()


def reap_expired_sessions() -> int:
    """Shut down the disconnected sessions whose reconnect window has ended; the number scheduled.

    Runs the reaping on Streamlit's event loop (session storage is only touched there) and waits
    for it (at most 10 s). Returns -1 when Streamlit's internals are not the expected ones.
    """
    found = _expired_sessions_cache()
    if found is None:
        return -1
    rt, cache = found
    done = threading.Event()
    reaped = []

    def reap() -> None:
        try:
            for session in _SHUT_DOWN:  # state a script still stopping wrote after the last reaping
                drop_session_state(session)
            _SHUT_DOWN.clear()
            for _, info in cache.expire():
                info.session.shutdown()
                drop_session_state(info.session)
                _SHUT_DOWN.append(info.session)
                reaped.append(info.session.id)
        except Exception:
            _LOG.exception("reaping failed")
        finally:
            done.set()

    try:
        rt._get_async_objs().eventloop.call_soon_threadsafe(reap)
    except (AttributeError, RuntimeError):
        return -1
    done.wait(10)
    return len(reaped)


def trim_heap() -> None:
    """Hand freed heap pages back to the operating system (glibc's ``malloc_trim``; other allocators do it
    themselves). A few milliseconds with hundreds of megabytes free, and it runs without the GIL (ctypes)."""
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def release_memory() -> None:
    """Collect reference cycles and hand freed heap pages back to the operating system (glibc only)."""
    gc.collect()
    trim_heap()


def memory_report() -> str:
    """What the server holds, for diagnosing memory (logged after each reaping when OPSTUDIO_MEMORY_REPORT is set).

    Live Streamlit sessions (objects still alive, not only those the session manager lists), the entries the
    shut-down ones still hold in their ``st.session_state`` (0 once :func:`drop_session_state` ran), and the bytes of
    the NumPy arrays reachable from tracked objects, in all and from the server's caches (``views.state.SERVER_CACHE``
    and any ``st.cache_resource`` / ``st.cache_data``), and what the server cache holds against its budget. ``OPSTUDIO_MEMORY_REPORT=referrers`` also logs what keeps each session object alive.
    """

    def is_array(obj) -> bool:  # a NumPy array, told by its type (this module imports no NumPy)
        return type(obj).__name__ == "ndarray" and hasattr(obj, "nbytes")

    def root(array):
        while is_array(array.base):
            array = array.base
        return array

    def roots(objects) -> dict:
        found: dict = {}
        for obj in objects:
            for ref in gc.get_referents(obj):
                if is_array(ref):
                    ref = root(ref)
                    found[id(ref)] = ref
        return found

    objects = gc.get_objects()
    sessions = [o for o in objects if type(o).__name__ == "AppSession"]
    shut = [s for s in sessions if getattr(getattr(s, "_state", None), "name", "") == "SHUTDOWN_REQUESTED"]
    held = sum(len(s._session_state._keys()) for s in shut if hasattr(s, "_session_state"))
    every = roots(objects)
    cached = {}
    try:
        from streamlit.runtime.caching import cache_data_api, cache_resource_api

        from views.state import SERVER_CACHE

        for api in (cache_resource_api, cache_data_api):
            mgr = next(v for k, v in vars(api).items() if k.startswith("_") and k.endswith("_caches"))
            seen = set()
            todo = [getattr(c, "_mem_cache", None) for caches in mgr._function_caches.values() for c in caches.values()]
            if api is cache_resource_api:
                todo.append(SERVER_CACHE.values())  # the results every session shares
            while todo:  # everything reachable from the cached values (not through functions, classes, modules)
                obj = todo.pop()
                if id(obj) in seen or isinstance(obj, (type, type(gc), type(gc.collect), type(memory_report))):
                    continue
                seen.add(id(obj))
                if is_array(obj):
                    obj = root(obj)
                    cached[id(obj)] = obj.nbytes
                    continue
                todo.extend(gc.get_referents(obj))
    except Exception as exc:  # a diagnostic only
        return f"memory report failed: {exc!r}"
    mb = 1024**2
    if os.environ.get("OPSTUDIO_MEMORY_REPORT") == "referrers":
        for session in (o for o in objects if type(o).__name__ == "AppSession"):
            _LOG.warning("AppSession %s held by:\n%s", getattr(session, "id", "?"), _referrers(session, objects))
        for array in sorted((a for i, a in every.items() if i not in cached), key=lambda a: -a.nbytes)[:2]:
            _LOG.warning("array of %.0f MB held by:\n%s", array.nbytes / mb, _referrers(array, objects, depth=9))
    return (
        f"memory report: {len(sessions)} sessions alive, {len(shut)} of them shut down, holding {held} "
        f"session_state entries; NumPy arrays {sum(a.nbytes for a in every.values()) / mb:.0f} MB reachable, "
        f"{sum(cached.values()) / mb:.0f} MB of them from the server's caches; server cache: {SERVER_CACHE.report()}"
    )


def _referrers(target, objects, depth: int = 7) -> str:
    """Chains of objects that keep ``target`` alive (a diagnostic: type names and dict keys)."""
    skip = {id(objects)}
    lines = []

    def describe(o) -> str:
        if isinstance(o, dict):
            return "dict(" + ", ".join(map(str, list(o)[:6])) + ")"
        if type(o).__name__ == "frame":
            return f"frame {o.f_code.co_filename}:{o.f_lineno} {o.f_code.co_name}"
        if type(o).__name__ in ("coroutine", "generator"):
            code = getattr(o, "cr_code", None) or getattr(o, "gi_code", None)
            return f"{type(o).__name__} {code.co_qualname if code else '?'}"
        if type(o).__name__ == "Task":
            return f"Task {o.get_coro()!r}"
        return type(o).__module__ + "." + type(o).__qualname__

    def walk(o, level: int, seen: set) -> None:
        if level >= depth or len(lines) > 80:
            return
        found = gc.get_referrers(o)
        skip.add(id(found))
        for r in found:
            if id(r) in skip or id(r) in seen or r is seen or type(r).__name__ == "list_iterator":
                continue
            lines.append("  " * level + describe(r))
            walk(r, level + 1, seen | {id(r)})

    walk(target, 0, {id(target)})
    return "\n".join(lines)


def connected_sessions() -> int | None:
    """How many sessions have a browser connected now, or None when Streamlit's internals are not the expected ones."""
    found = _expired_sessions_cache()
    try:
        return None if found is None else int(found[0]._session_mgr.num_active_sessions())
    except (AttributeError, TypeError, ValueError):
        return None


#: ``time.monotonic()`` since when no session has been connected (None while one is)
_IDLE_SINCE: list[float | None] = [None]


def release_when_idle(connected: int | None, now: float, idle_seconds: float = IDLE_RELEASE_SECONDS) -> int:
    """Empty the server's cache of shared results once no session has been connected for ``idle_seconds``; how many
    results were dropped (0 while a session is connected, or the count is unknown)."""
    from views.state import SERVER_CACHE

    if connected is None:  # Streamlit's internals differ: never drop what may be in use
        return 0
    if connected:
        _IDLE_SINCE[0] = None
        return 0
    if _IDLE_SINCE[0] is None:
        _IDLE_SINCE[0] = now
    if now - _IDLE_SINCE[0] < idle_seconds or not len(SERVER_CACHE):
        return 0
    return SERVER_CACHE.discard_where(lambda key: True)


def janitor_pass() -> bool:
    """One pass of the janitor: reap the expired sessions, release what no live session reads (and everything once
    the server has been idle for :data:`IDLE_RELEASE_SECONDS`), and give freed memory back when any of that happened
    or background work ended since the last pass; whether memory was released."""
    from views.state import WORK_ENDED, release_unread

    reaped = reap_expired_sessions() != 0
    if reaped:
        release_unread()
    idle_dropped = release_when_idle(connected_sessions(), time.monotonic())
    if not (reaped or idle_dropped or WORK_ENDED.is_set()):  # work ending after a reaping freed memory too
        return False
    WORK_ENDED.clear()
    release_memory()
    if reaped and os.environ.get("OPSTUDIO_MEMORY_REPORT"):
        _LOG.warning(memory_report())
    return True


def _janitor(period: float) -> None:
    while True:
        time.sleep(max(period, 0.1))
        try:
            janitor_pass()
        except Exception:  # housekeeping must never take the server down
            _LOG.exception("session housekeeping failed")


#: glibc's ``mallopt`` parameter (malloc.h)
_M_ARENA_MAX = -8
#: malloc arenas (glibc's default is 8 per core, one per thread that allocates: every script run is a thread, and
#: each arena keeps its freed blocks). glibc's mmap threshold is left alone on purpose: fixing it at 1 MB gave back
#: another ~200 MB after sessions ended but made element-wise NumPy work on 10^6-row arrays 25 % slower (every
#: fresh mapping is zeroed by the kernel), and the memory target is met without it (benchmarks/RESULTS.md,
#: "Server memory"); set MALLOC_MMAP_THRESHOLD_ in the environment to make that trade
ARENA_MAX = 4


def tune_allocator() -> bool:
    """Cap glibc's malloc arenas, unless ``MALLOC_*`` variables in the environment say otherwise.

    Returns
    -------
    bool
        True when the cap was applied (glibc, no ``MALLOC_*`` variable); at run time glibc may already have
        created more arenas, which it keeps.
    """
    if any(k.startswith("MALLOC_") for k in os.environ):
        return False
    try:
        return bool(ctypes.CDLL("libc.so.6").mallopt(_M_ARENA_MAX, ARENA_MAX))
    except (OSError, AttributeError):  # not glibc
        return False


def start_warmup() -> subprocess.Popen | None:
    """Fill Numba's on-disk cache in a separate process at the lowest CPU priority (``python -m engine.warmup``).

    A fresh install otherwise compiles the engine's kernels during the Early exit page's first visit (about 14 s).
    A process, not a thread: compiling holds an interpreter, and it must not be the server's. Off when the
    environment sets ``OPSTUDIO_WARMUP=0``. A thread waits for it so that it leaves no zombie.
    """
    if os.environ.get("OPSTUDIO_WARMUP", "1") == "0":
        return None
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "engine.warmup"],
            cwd=Path(__file__).resolve().parent.parent,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    except OSError:  # pragma: no cover - cannot start a process: the pages compile as before
        _LOG.warning("could not start the kernel warm-up")
        return None
    try:
        os.setpriority(os.PRIO_PROCESS, proc.pid, 19)  # the child lowers itself too; this covers its start-up
    except (AttributeError, OSError):  # pragma: no cover - not POSIX, or it has already ended
        pass
    threading.Thread(target=proc.wait, daemon=True, name="opstudio-warmup-wait").start()
    return proc


#: environment variables that set BLAS's threads (OpenBLAS, MKL, Apple's Accelerate); any of them set wins
_BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "VECLIB_MAXIMUM_THREADS")


def limit_blas_threads() -> bool:
    """BLAS on one thread in the server, unless the environment sets its threads.

    The server runs every session's work in threads of one process; the engine's matrix work is small (a constrained
    fit's (d+1) x (d+1) Newton systems, d ~ 100) and OpenBLAS's spinning thread pool loses to every other thread and
    process for the cores: on the shared 2-core machine a constrained fit on 3,000 Adult rows took 21.4 s with
    OpenBLAS's default threads and 0.83 s on one (load 16), "Train from scratch" on the Constrained training page
    23 s. The libraries loaded now are limited at once (threadpoolctl); the variables keep those loaded later
    (SciPy's own OpenBLAS) on one thread too.

    Returns
    -------
    bool
        True when the limit was applied (no variable set).
    """
    if any(v in os.environ for v in _BLAS_THREAD_VARIABLES):
        return False
    for variable in _BLAS_THREAD_VARIABLES:
        os.environ[variable] = "1"
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=1, user_api="blas")  # kept for the process's life (not used as a context)
    except ImportError:  # pragma: no cover - scikit-learn's dependency
        pass
    return True


def start() -> None:
    """Tune the allocator and BLAS, start the janitor thread and the kernels' warm-up, once per server process
    (idempotent)."""
    if not any(t.name == "opstudio-housekeeping" for t in threading.enumerate()):
        tune_allocator()
        limit_blas_threads()
        threading.Thread(target=_janitor, args=(PERIOD_SECONDS,), daemon=True, name="opstudio-housekeeping").start()
        start_warmup()
