"""Session helpers shared by the pages: a session-scoped memo, work on click, background work, Markdown escaping.

Uploaded data never leaves the user's session: the raw bytes, the validated
inputs (``views/inputs.py``) and every derived result live in
``st.session_state``. Results are memoised under keys built from the input's
SHA-256 fingerprint, its column mapping and the settings, so a slider move never
re-parses a file or rebuilds a hull. Data every session may read (a shipped sample,
a workspace dataset opened after its access check) is held once per server, and so
are its results: their keys hold :data:`SERVER_WIDE` and live in :data:`SERVER_CACHE`
under its byte budget, so eight sessions on one dataset hold one hull and one bootstrap.
"""

from __future__ import annotations

import logging
import os
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from concurrent.futures import CancelledError, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any, TypeVar

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from engine.backends import ScanProgress
from engine.memory import ByteBudgetCache
from views.housekeeping import trim_heap
from views.settings import env_number

_MEMO_SIZE = 48
T = TypeVar("T")
_LOG = logging.getLogger(__name__)

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:])")


def md(text: object) -> str:
    """Escape user-supplied text (file and column names, data values in messages) for Markdown.

    Streamlit renders messages as Markdown: unescaped, a file name such as
    ``[x](http://...)`` would become a link and ``![x](...)`` would fetch an image.
    """
    return _MARKDOWN_SPECIAL.sub(r"\\\1", str(text))


def check_key(key: Hashable) -> None:
    """Refuse a key that holds an instance of a class defined in a page script.

    Streamlit runs a page script as ``__main__`` anew on every full run, so its classes are new objects
    each time and an instance kept from an earlier run never equals this run's: a memo or a kept result
    under such a key is never found again (the work is redone on every run, a result vanishes). Keys hold
    the instance's fields instead (``dataclasses.astuple``).

    Raises
    ------
    TypeError
        Naming the class, when a part of ``key`` (nested tuples included) is such an instance.
    """
    for part in key if isinstance(key, tuple) else (key,):
        if isinstance(part, tuple):
            check_key(part)
        elif type(part).__module__ == "__main__":
            raise TypeError(
                f"a memo key holds a {type(part).__qualname__}, a class of the page script, which is "
                "new on every run: key it by its fields (dataclasses.astuple)"
            )


class _ServerWide:
    """The type of :data:`SERVER_WIDE` (one instance, compared by identity)."""

    def __repr__(self) -> str:
        return "SERVER_WIDE"


#: a part of a memo key that makes its result the server's: results of data every session that reads it may see (a
#: shipped sample; a workspace dataset, opened after its access check), computed once per server and held in
#: :data:`SERVER_CACHE`, whatever the number of sessions. ``SessionInput.key`` starts with it for such data; a key
#: without it stays in its session (an upload's results never leave it).
SERVER_WIDE = _ServerWide()
_MISSING = object()


def server_wide(key: Hashable) -> bool:
    """Whether ``key`` (nested tuples included) holds :data:`SERVER_WIDE`."""
    return _dataset_of(key) is not None


def _dataset_of(key: Hashable) -> Any:
    """What follows :data:`SERVER_WIDE` in ``key`` (the dataset's digest), or None for a session's key."""
    parts = key if isinstance(key, tuple) else (key,)
    for i, part in enumerate(parts):
        if part is SERVER_WIDE:
            return parts[i + 1] if i + 1 < len(parts) else ""
        if isinstance(part, tuple):
            found = _dataset_of(part)
            if found is not None:
                return found
    return None


#: dataset digest -> ids of the sessions that read its server-wide results (a session's id is forgotten when the
#: session ends, views.housekeeping); results of a dataset nobody reads any more are released (:func:`release_unread`)
_READERS: dict[Any, set[str]] = {}


def _note_reader(key: tuple) -> None:
    ctx = get_script_run_ctx(suppress_warning=True)
    if ctx is not None:
        with _SHARED_LOCK:
            _READERS.setdefault(_dataset_of(key), set()).add(ctx.session_id)


def forget_session(session_id: str) -> None:
    """The session has ended: it reads no dataset any more."""
    with _SHARED_LOCK:
        for readers in _READERS.values():
            readers.discard(session_id)


def release_unread() -> int:
    """Drop the server-wide results (and held datasets) of the datasets no live session reads; how many were dropped.

    Called by the janitor after it reaped ended sessions (views.housekeeping): eight sessions on one dataset hold one
    copy of it and its results while any of them lives, and the server gives it back once the last one has ended (the
    next session to open it reads it from the store again). A result computed without a session (bare mode) is kept.
    """
    with _SHARED_LOCK:
        unread = {dataset for dataset, readers in _READERS.items() if not readers}
        for dataset in unread:
            del _READERS[dataset]
    return SERVER_CACHE.discard_where(lambda key: _dataset_of(key) in unread) if unread else 0  # a session's key: None


def _session_memo() -> OrderedDict:
    return st.session_state.setdefault("_memo", OrderedDict())


def _lookup(key: tuple) -> Any:
    """What is kept for ``key`` (the server's cache for a server-wide key, then the session's), else ``_MISSING``."""
    if server_wide(key):
        _note_reader(key)
        value = SERVER_CACHE.lookup(key, _MISSING)
        if value is not _MISSING:
            return value
    store = _session_memo()
    if key in store:
        store.move_to_end(key)
        return store[key]
    return _MISSING


def _keep_in_session(key: tuple, value: Any) -> None:
    store = _session_memo()
    store[key] = value
    while len(store) > _MEMO_SIZE:
        store.popitem(last=False)


def _keep(key: tuple, value: Any) -> Any:
    """Keep ``value`` for ``key``: in the server's cache when the key is server-wide and the budget holds it, else in
    the session (a result heavier than the whole budget is not recomputed on every run)."""
    if not (server_wide(key) and SERVER_CACHE.put(key, value)):
        _keep_in_session(key, value)
    return value


#: seconds of work after which the heap is trimmed: reading a 10^6-row file, its per-segment hulls or a bootstrap
#: frees hundreds of megabytes of temporaries that glibc keeps in its arenas (a fresh server held about 200 MB of
#: them after opening one 10^6-row view, until the janitor's next pass); shorter work (a slider step) frees little,
#: and pages given back would only be faulted in again by the next step
TRIM_AFTER_SECONDS = 0.25


def heap_trimmed_after(compute: Callable[..., T], clock: Callable[[], float] = time.monotonic) -> Callable[..., T]:
    """``compute``, handing the heap pages its temporaries freed back to the operating system once it ends after
    at least :data:`TRIM_AFTER_SECONDS` (even when it fails): the server's memory then holds the results, not what
    it took to compute them, when the next sessions arrive."""

    def run(*args: Any) -> T:
        start = clock()
        try:
            return compute(*args)
        finally:
            if clock() - start >= TRIM_AFTER_SECONDS:
                trim_heap()

    return run


def memo(key: tuple, compute: Callable[[], Any]) -> Any:
    """``compute()`` once for ``key``, kept for later runs: in the session (an LRU of ``_MEMO_SIZE`` entries), or
    once per server when the key is :func:`server_wide` (a session asking meanwhile waits for that result)."""
    check_key(key)
    found = _lookup(key)
    if found is not _MISSING:
        return found
    if server_wide(key):
        value = SERVER_CACHE.get_or_compute(key, heap_trimmed_after(compute))
        if key not in SERVER_CACHE:  # heavier than the budget
            _keep_in_session(key, value)
        return value
    value = heap_trimmed_after(compute)()
    _keep_in_session(key, value)
    return value


#: the default byte budget of the server-wide cache, in megabytes
CACHE_MB = 512


def cache_budget_bytes(environ=os.environ) -> int:
    """Bytes every server-wide cache shares: ``OPSTUDIO_CACHE_MB`` megabytes (default 512; 0 holds nothing).

    A value that is not a number >= 0 is ignored (the default holds), with a warning in the server's log.
    """
    mb = env_number("OPSTUDIO_CACHE_MB", CACHE_MB, unit="megabytes", upper=2**40, environ=environ)
    return int(mb * 2**20)


#: the server's one cache of shared results (models, training tables, sweeps, samples): one byte budget, least
#: recently used evicted first (engine.memory); what it holds is logged by views.housekeeping's memory report
SERVER_CACHE = ByteBudgetCache(cache_budget_bytes())


def server_memo(key: tuple, compute: Callable[[], T], *, size: int | None = None) -> T:
    """``compute()`` once per server for ``key``: results every session shares, held in :data:`SERVER_CACHE`.

    Not ``st.cache_resource``: that records the Streamlit calls made while computing and replays them on
    every later hit, and a progress bar the computing session drew outside the function cannot be
    replayed (``CacheReplayClosureError``: the second click on a shared sweep, by anyone, failed); and its
    caches have no byte budget. Here the work draws its progress in the session that computes; a session
    asking for the same key meanwhile waits for that result instead of computing it again. A failed
    computation is not kept: the next caller computes it again. The result is weighed when stored (or
    ``size`` bytes) and the least recently used results are dropped while the cache is over its budget
    (``OPSTUDIO_CACHE_MB``). The key must never name a session.
    """
    check_key(key)
    return SERVER_CACHE.get_or_compute(key, heap_trimmed_after(compute), size)


#: seconds of work before its progress bar appears: shorter work shows none (each bar drawn is a message the
#: browser lays out, beside the page it shifts, while the work competes with it for the cores)
PROGRESS_AFTER = 0.3
#: least seconds between two redraws of a bar: the engines report every step, up to hundreds a second
PROGRESS_EVERY = 0.1


def progress_callback(label: str, clock: Callable[[], float] = time.monotonic, place: Any = None):
    """A place for a progress bar and a ``(done, total)`` callback for long engine work.

    The bar appears at the first report after :data:`PROGRESS_AFTER` seconds and is redrawn at
    most every :data:`PROGRESS_EVERY` seconds, the last step always; ``place.empty()`` removes it.
    ``place``: an ``st.empty()`` the caller already drew (a new one by default).
    """
    label = md(label)
    place = st.empty() if place is None else place
    start, last = clock(), [float("-inf")]

    def update(done: int, total: int) -> None:
        now = clock()
        if now - start < PROGRESS_AFTER or (done < total and now - last[0] < PROGRESS_EVERY):
            return
        last[0] = now
        place.progress(min(1.0, done / total), text=f"{label} ({done}/{total})")

    return place, update


def on_click(
    slot: str,
    inputs: Hashable,
    clicked: bool,
    compute: Callable[..., T],
    *,
    progress: str | None = None,
    spinner: str | None = None,
) -> T | None:
    """Compute on click, keep the result for these inputs.

    Work a page does only when asked (a report, a simulation, a sweep): when
    ``clicked``, ``compute()`` runs and its result is kept in the session under
    ``slot`` together with ``inputs``. The kept result is returned on every later
    run whose ``inputs`` equal those it was computed for, and ``None`` otherwise
    (nothing asked for these inputs yet), so a result never shows beside settings
    it was not computed with. One result per slot: the newest click wins.

    ``progress`` names a progress bar and calls ``compute(update)`` with its
    ``(done, total)`` callback; ``spinner`` shows a spinner while ``compute()`` runs.
    The page keeps its own button (label, key, place), passing its value as ``clicked``.
    """
    check_key(inputs)
    if clicked:
        work = heap_trimmed_after(compute)
        if progress is not None:
            bar, update = progress_callback(progress)
            value = work(update)
            bar.empty()
        elif spinner is not None:
            with st.spinner(md(spinner)):
                value = work()
        else:
            value = work()
        st.session_state[slot] = (inputs, value)
    kept = st.session_state.get(slot)
    return kept[1] if kept is not None and kept[0] == inputs else None


def kept(slot: str) -> tuple[Any, Any] | None:
    """``(inputs, result)`` last kept by :func:`on_click` under ``slot`` whatever its inputs, or None."""
    return st.session_state.get(slot)


# One small pool for every session: long engine work runs beside the script so the page stays responsive,
# and at most two jobs compete with the app for the machine's cores.
_POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="opstudio-job")
_JOBS = "_jobs"
#: background work and scans of server-wide keys, whichever session started them (the others show their progress)
_SERVER_JOBS: dict = {}
_SERVER_SCANS: dict = {}
_SHARED_LOCK = threading.Lock()
_POLL_SECONDS = 0.5
#: set when background work has ended (finished, failed, or cancelled because its session ended): its temporaries
#: are garbage now, and a cancelled job's traceback holds them in a reference cycle (frames -> job.update -> job ->
#: future -> exception) until the collector runs. The janitor (views.housekeeping) then collects and trims: without
#: that, work that outlived its session's reaping kept its memory until the next reaping, if any.
WORK_ENDED = threading.Event()
#: work (in the caller's units, e.g. rated rows x bootstrap replicates) done before the page shows;
#: more runs in the background
FOREGROUND_WORK = 20_000_000


@dataclass
class _Job:
    future: Future
    label: str
    done: int = 0
    total: int = 1
    lock: threading.Lock = field(default_factory=threading.Lock)
    #: set when the session ended (views.housekeeping): the work stops at its next progress report
    cancelled: bool = False

    def update(self, done: int, total: int) -> None:
        if self.cancelled:
            raise CancelledError("the session that asked for this work has ended")
        with self.lock:
            self.done, self.total = done, total
        _wait_while_held(self)
        if self.cancelled:
            raise CancelledError("the session that asked for this work has ended")


#: a slider step's redraw: the server's run (~50 ms) and the browser's (~250 ms) on the 2 cores
HOLD_SECONDS = 0.5
#: the longest one progress report waits, however long users keep moving controls (the work still finishes)
HOLD_MAX_SECONDS = 2.0
#: background work waits at its next progress report until this ``time.monotonic()`` (:func:`hold_background`)
_HELD_UNTIL = [0.0]
#: the session's own: until when its finished background work does not rerun the whole page
_SESSION_HELD = "_held_until"


def hold_background(seconds: float = HOLD_SECONDS) -> None:
    """Pause every session's background work at its next progress report for ``seconds`` from now.

    A control whose redraw must not share the machine calls this when it runs: on 2 cores a bootstrap beside the
    Operating point slider made each step about 75 ms slower (benchmarks/RESULTS.md), although it ran at a lower
    priority, in compiled code that releases the GIL. The engine's long loops report progress between short blocks
    (a tenth of a second or less) and start the next block only when the report returns, so the pause begins within
    a block. A report waits at most :data:`HOLD_MAX_SECONDS`, so work always finishes. In this session, finished
    background work also waits with its full-page redraw until the control has rested that long
    (:func:`_progress_fragment`): a step never queues behind a run of the whole page.
    """
    until = time.monotonic() + seconds
    _HELD_UNTIL[0] = max(_HELD_UNTIL[0], until)
    st.session_state[_SESSION_HELD] = until


def _wait_while_held(job: _Job) -> None:
    deadline = time.monotonic() + HOLD_MAX_SECONDS
    while not job.cancelled:
        wait = min(_HELD_UNTIL[0], deadline) - time.monotonic()
        if wait <= 0:
            return
        time.sleep(min(wait, 0.02))


def background(
    key: tuple, compute: Callable[[Callable[[int, int], None]], Any], *, label: str, work: float = 0
) -> Any | None:
    """Memoised long work: the result if ready, else ``None`` while it runs in the background.

    ``compute(progress)`` runs once per key in a worker thread (it must not call
    Streamlit); meanwhile a small fragment shows its progress and reruns the page
    when the result is ready. Work up to :data:`FOREGROUND_WORK` is computed in the
    script instead, with a progress bar.
    """
    check_key(key)
    # One element in every state (running, finished, held, computed here): a fragment drawn after it keeps its id
    # (Streamlit hashes the position into it). Otherwise the full-page run that shows finished work moves the
    # fragments below, and a slider step the browser sends with the old id is dropped ("The fragment with id ... does
    # not exist anymore"): the slider shows the new value, the page the old one (benchmarks/load_test.py, issue 37).
    place = st.empty()
    found = _lookup(key)
    if found is not _MISSING:
        return found
    if work <= FOREGROUND_WORK:
        bar, update = progress_callback(label, place=place)
        value = memo(key, lambda: compute(update))
        bar.empty()
        return value
    jobs = _jobs_of(key)
    with _SHARED_LOCK:
        job = jobs.get(key)
        if job is None:
            job = _start(compute, md(label))
            jobs[key] = job
    if job.future.done():
        return _finished(key, jobs, job)
    with place.container():
        _progress_fragment(job)
    return None


def _start(compute: Callable[[Callable[[int, int], None]], Any], label: str) -> _Job:
    """``compute(job.update)`` submitted to the background pool; :data:`WORK_ENDED` is set when it ends."""
    job = _Job(None, label)
    job.future = _POOL.submit(_below_the_script, compute, job.update)
    job.future.add_done_callback(lambda _: WORK_ENDED.set())
    return job


def _jobs_of(key: tuple) -> dict:
    return _SERVER_JOBS if server_wide(key) else st.session_state.setdefault(_JOBS, {})


def _finished(key: tuple, jobs: dict, job: _Job) -> Any:
    """The finished job's result, kept (then the job forgotten, so no session starts it again meanwhile); its error
    is raised here, in the script, and the job forgotten (the next run tries again)."""
    try:
        value = job.future.result()
        _keep(key, value)
    finally:
        with _SHARED_LOCK:
            if jobs.get(key) is job:
                del jobs[key]
    return value


#: niceness of the background threads: the scripts (slider steps) get the cores first
_BACKGROUND_NICENESS = 10


def _below_the_script(compute: Callable[[Callable[[int, int], None]], Any], update: Callable[[int, int], None]) -> Any:
    """Run ``compute(update)`` in this pool thread at a lower CPU priority than the server's scripts.

    On Linux a thread's niceness is its own (``setpriority`` on its native id); the engine's long work
    (the bootstrap's compiled hulls and draws) releases the GIL, so a slider step's script gets the
    interpreter and, with this, the cores.
    """
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), _BACKGROUND_NICENESS)
    except (AttributeError, OSError):  # pragma: no cover - not Linux, or not allowed: normal priority
        pass
    return heap_trimmed_after(compute)(update)


def background_result(key: tuple) -> Any | None:
    """The result of :func:`background` work for ``key`` once it has finished in this session, else None.

    Starts nothing. A fragment calls this to show finished work in its own rerun (its arguments are those of the
    last full run, taken before the work finished), without waiting for the full-page redraw that
    :func:`_progress_fragment` triggers when the session's controls rest.
    """
    found = _lookup(key)
    if found is not _MISSING:
        return found
    jobs = _jobs_of(key)
    job = jobs.get(key)
    if job is None or not job.future.done() or job.future.cancelled() or job.future.exception() is not None:
        return None
    return _finished(key, jobs, job)


def page_rerun_due(job: _Job, held_until: float) -> bool:
    """Whether finished background work reruns the whole page now: it is done and the session's controls rest.

    While a control of the session moves (:func:`hold_background`), the page waits: a step would otherwise queue
    behind a run of the whole page (Streamlit runs a session's fragment after a full run in progress), and the
    moving fragment shows the result itself (:func:`background_result`).
    """
    return job.future.done() and time.monotonic() >= held_until


@st.fragment(run_every=_POLL_SECONDS)
def _progress_fragment(job: _Job) -> None:
    if job.future.done():
        if page_rerun_due(job, st.session_state.get(_SESSION_HELD, 0.0)):
            st.rerun(scope="app")
        return  # a control of this session moves: the page is redrawn at the first poll after it rests
    with job.lock:
        share = min(1.0, job.done / max(job.total, 1))
        st.progress(share, text=f"{job.label} ({job.done}/{job.total}) — the page works meanwhile")


# DuckDB scans of data on the server run beside the script, which shows their progress; separate from _POOL so that a
# background bootstrap never delays a scan
_SCAN_POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="opstudio-scan")
_SCAN_POLL_SECONDS = 0.2


def scan(key: tuple, compute: Callable[[ScanProgress], Any], *, label: str) -> Any:
    """Memoised count of rows (in memory, DuckDB or Spark) with a status box showing the progress while it runs.

    ``compute(progress)`` runs in a worker thread (it must not call Streamlit); the
    script polls ``progress`` and draws it. Errors (``InputError``) are raised here,
    in the script, after the status box is marked as failed.
    """
    check_key(key)
    place = st.empty()  # one element whether the count is held or runs now: the fragments below keep their ids
    found = _lookup(key)
    if found is not _MISSING:
        return found
    label = md(label)
    started = time.perf_counter()
    # a rerun mid-scan picks the running scan up again; a server-wide key's scan is every session's
    scans: dict = _SERVER_SCANS if server_wide(key) else st.session_state.setdefault("_scans", {})
    with _SHARED_LOCK:
        if key not in scans:
            progress = ScanProgress()
            scans[key] = (_SCAN_POOL.submit(heap_trimmed_after(compute), progress), progress)
        future, progress = scans[key]
    with place.container(), st.status(label, expanded=True) as box:
        bar = st.progress(0.0, text="Reading the rows")
        while not wait([future], timeout=_SCAN_POLL_SECONDS).done:
            share, seconds = progress.share(), time.perf_counter() - started
            bar.progress(share, text=f"query {max(progress.queries, 1)}: {share:.0%} ({seconds:.1f} s)")
        try:
            value = future.result()
            _keep(key, value)
        except Exception:
            box.update(label=f"{label}: failed", state="error")
            raise
        finally:
            with _SHARED_LOCK:
                if key in scans and scans[key][0] is future:
                    del scans[key]
        bar.empty()
        box.update(label=f"{label}: done in {time.perf_counter() - started:.1f} s", state="complete", expanded=False)
    return value
