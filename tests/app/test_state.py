"""views.state: keys of the session memo, kept results and shared results."""

from dataclasses import astuple, dataclass

import pytest

from views.state import check_key


def page_script_class():
    """A dataclass as a page script defines it: Streamlit runs the script as __main__, anew on every run."""

    @dataclass(frozen=True)
    class Settings:
        alpha: float
        neg_only: bool

    Settings.__module__ = "__main__"
    return Settings


def test_an_instance_of_a_page_scripts_class_never_equals_the_next_runs():
    first_run, second_run = page_script_class(), page_script_class()
    assert first_run(0.5, False) != second_run(0.5, False)  # why such keys never hit
    assert astuple(first_run(0.5, False)) == astuple(second_run(0.5, False))


@pytest.mark.parametrize(
    "key",
    [
        ("qwyc", page_script_class()(0.5, False)),
        ("a", ("nested", page_script_class()(0.5, True))),
        page_script_class()(0.5, True),
    ],
)
def test_keys_holding_a_page_scripts_instance_are_refused(key):
    with pytest.raises(TypeError, match="Settings, a class of the page script"):
        check_key(key)


def test_keys_of_plain_values_and_library_objects_pass():
    from engine.io import ColumnMapping

    check_key(("audit_plan", "sha", ColumnMapping(("s",), "y", None, None), 0.5, None, True, ("x", 1)))
    check_key("one string")


def progress_script():
    """A page reporting work through progress_callback on a clock the test drives (st.session_state["times"])."""
    import streamlit as st

    from views.state import progress_callback

    times = iter(st.session_state["times"])
    place, update = progress_callback("Fitting", clock=lambda: next(times))
    for done in range(1, st.session_state["steps"] + 1):
        update(done, st.session_state["steps"])
    if st.session_state.get("remove"):
        place.empty()


def run_progress(times, steps, remove=False):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(progress_script)
    at.session_state["times"], at.session_state["steps"], at.session_state["remove"] = times, steps, remove
    at.run()
    assert not at.exception
    return [(p.value, p.proto.text) for p in at.get("progress")]


def test_short_work_shows_no_progress_bar():
    assert run_progress([0.0] + [0.01 * k for k in range(1, 11)], 10) == []  # 0.1 s of work: under PROGRESS_AFTER


def test_a_bar_appears_after_the_delay_is_redrawn_at_most_every_tenth_of_a_second_and_shows_the_last_step(monkeypatch):
    from streamlit.delta_generator import DeltaGenerator

    drawn = []
    draw = DeltaGenerator.progress
    monkeypatch.setattr(
        DeltaGenerator,
        "progress",
        lambda self, value, text=None: drawn.append((round(value, 3), text)) or draw(self, value, text),
    )
    tick = 2.0**-9  # ~2 ms per step, exact in binary: the times compare without rounding
    bars = run_progress([0.0] + [tick * k for k in range(1, 501)], 500)
    assert bars == [(100, "Fitting (500/500)")]  # one element, redrawn in place, ending at the last step
    steps = [int(text.split("(")[1].split("/")[0]) for _, text in drawn]
    assert steps[0] == 154  # the first report at or after 0.3 s (153.6 ticks)
    gaps = [tick * (b - a) for a, b in zip(steps[:-2], steps[1:-1])]
    assert all(0.1 <= g < 0.1 + tick for g in gaps)  # then at the first report 0.1 s after the last drawn
    assert steps[-1] == 500 and drawn[-1][0] == 1.0 and len(steps) == 8  # the last step always


def test_the_place_of_the_bar_is_emptied_when_the_work_ends():
    assert run_progress([0.0, 0.5, 0.6], 2, remove=True) == []


class DrivenClock:
    """time.monotonic and time.sleep of views.state on a clock the test drives: sleeping advances it."""

    def __init__(self):
        self.now, self.slept = 100.0, 0.0

    def monotonic(self):
        return self.now

    def sleep(self, seconds):
        self.now += seconds
        self.slept += seconds


@pytest.fixture
def clock(monkeypatch):
    import views.state as state

    driven = DrivenClock()
    monkeypatch.setattr(state.time, "monotonic", driven.monotonic)
    monkeypatch.setattr(state.time, "sleep", driven.sleep)
    monkeypatch.setattr(state, "_HELD_UNTIL", [0.0])
    return driven


def job():
    from concurrent.futures import Future

    from views.state import _Job

    return _Job(Future(), "Bootstrapping")


def test_background_work_goes_on_at_once_when_nothing_holds_it(clock):
    j = job()
    j.update(10, 200)
    assert (j.done, j.total, clock.slept) == (10, 200, 0.0)


def test_a_hold_pauses_background_work_at_its_next_report_until_the_hold_ends(clock):
    from views.state import HOLD_SECONDS, hold_background

    hold_background()
    clock.now += 0.1  # the block in flight ends 0.1 s into the hold
    j = job()
    j.update(10, 200)
    assert j.done == 10  # the progress is shown while the work waits
    assert clock.slept == pytest.approx(HOLD_SECONDS - 0.1)
    hold_background(0.2)
    hold_background(0.05)  # a shorter hold never cuts a longer one
    j.update(20, 200)
    assert clock.slept == pytest.approx(HOLD_SECONDS - 0.1 + 0.2)


def test_a_report_waits_at_most_the_longest_hold_so_the_work_finishes(clock):
    from views.state import HOLD_MAX_SECONDS, hold_background

    hold_background(3600)  # users moving controls for an hour
    job().update(10, 200)
    assert clock.slept == pytest.approx(HOLD_MAX_SECONDS)


def test_work_held_for_an_ended_session_stops(clock, monkeypatch):
    from concurrent.futures import CancelledError

    import views.state as state

    state.hold_background(1.0)
    j = job()

    def ended_meanwhile(seconds):
        clock.sleep(seconds)
        j.cancelled = True  # views.housekeeping cancels the job of a session that ended during the hold

    monkeypatch.setattr(state.time, "sleep", ended_meanwhile)
    with pytest.raises(CancelledError):
        j.update(10, 200)
    assert clock.slept == pytest.approx(0.02)


def test_moving_the_target_slider_holds_the_background_work(app, monkeypatch):
    import views.state as state

    holds = []
    monkeypatch.setattr(state, "hold_background", lambda *a: holds.append(a))
    at = app(page="pages/operating_point.py")
    before = len(holds)
    assert before >= 1
    at.slider(key="target").set_value(0.4).run()
    assert not at.exception
    assert len(holds) == before + 1


def test_finished_work_reruns_the_page_only_once_the_sessions_controls_rest(clock):
    from views.state import page_rerun_due

    running, finished = job(), job()
    finished.future.set_result("replicates")
    assert not page_rerun_due(running, 0.0)
    assert page_rerun_due(finished, 0.0)
    assert not page_rerun_due(finished, clock.now + 0.3)  # a slider step 0.2 s ago held it until now + 0.3
    clock.now += 0.3
    assert page_rerun_due(finished, clock.now - 0.3)


#: the background work of :func:`background_script`, released by the test
GATE = __import__("threading").Event()


def background_script():
    import streamlit as st

    import views.state as state
    from tests.app.test_state import GATE

    key = ("test", "background result")
    seen = state.background_result(key)  # first, as a fragment rerun does: the job is found finished, not yet kept
    full = state.background(key, lambda progress: GATE.wait(60) and "replicates", label="Working", work=10**12)
    st.write(f"seen by a fragment: {seen}")
    st.write(f"full run: {full}")
    st.write(f"nothing asked: {state.background_result(('test', 'never started'))}")


def test_a_fragment_sees_finished_background_work_before_the_page_is_redrawn():
    from streamlit.testing.v1 import AppTest

    GATE.clear()
    at = AppTest.from_function(background_script, default_timeout=60).run()
    assert [m.value for m in at.markdown] == ["seen by a fragment: None", "full run: None", "nothing asked: None"]
    GATE.set()
    for j in list(at.session_state["_jobs"].values()):
        j.future.result(timeout=60)
    at.run()
    assert [m.value for m in at.markdown] == [
        "seen by a fragment: replicates",
        "full run: replicates",
        "nothing asked: None",
    ]


#: released by the test: the background work of :func:`position_script`
POSITION_GATE = __import__("threading").Event()


def position_script():
    import streamlit as st

    import views.state as state
    from tests.app.test_state import POSITION_GATE

    work = st.session_state.get("work", 10**12)
    state.background(("test", "position", work), lambda progress: POSITION_GATE.wait(60) and 1, label="Work", work=work)
    state.scan(("test", "position scan"), lambda progress: 2, label="Counting")
    st.markdown("after the work")


def index_of_marker(at) -> int:
    """The position, among the page's top elements, of what ``position_script`` draws after the work: the position a
    fragment drawn there would hash into its id."""
    return next(i for i, node in at.main.children.items() if getattr(node, "value", None) == "after the work")


@pytest.mark.parametrize("work", [10**12, 10])
def test_background_work_and_scans_take_one_place_in_every_state_so_fragments_below_keep_their_ids(work):
    """Streamlit hashes a fragment's position into its id: when finished work took no place, the page's full run that
    shows it moved the Operating point's slider fragment, and a step sent with the old id was dropped (the slider at
    the new value, the numbers at the old one; benchmarks/load_test.py with 8 users)."""
    from streamlit.testing.v1 import AppTest

    POSITION_GATE.clear()
    at = AppTest.from_function(position_script, default_timeout=60)
    at.session_state["work"] = work
    if work <= 10:
        POSITION_GATE.set()  # computed in the script, with its bar
    at.run()
    positions = [index_of_marker(at)]  # running in the background (a progress fragment), or just computed here
    POSITION_GATE.set()
    for job in list(at.session_state["_jobs"].values()) if "_jobs" in at.session_state else ():
        job.future.result(timeout=60)
    at.run()  # the full run that finds the work finished
    positions.append(index_of_marker(at))
    at.run()  # the work and the count held
    positions.append(index_of_marker(at))
    assert not at.exception
    assert positions == [positions[0]] * 3


def test_work_of_a_quarter_second_or_more_trims_the_heap_when_it_ends_even_when_it_fails(monkeypatch):
    import views.state as state

    trims, now = [], [0.0]
    monkeypatch.setattr(state, "trim_heap", lambda: trims.append(now[0]))

    def work(seconds, fail=False):
        def compute(*args):
            now[0] += seconds
            if fail:
                raise ValueError("no")
            return args

        return state.heap_trimmed_after(compute, clock=lambda: now[0])

    assert work(0.125)(1, 2) == (1, 2) and trims == []  # a slider step's work: nothing to give back
    assert work(state.TRIM_AFTER_SECONDS)() == () and trims == [0.125 + state.TRIM_AFTER_SECONDS]
    with pytest.raises(ValueError):
        work(1.0, fail=True)()
    assert len(trims) == 2


def test_a_shared_result_trims_the_heap_once_when_computed_not_when_found(monkeypatch):
    import views.state as state

    trims = []
    monkeypatch.setattr(state, "trim_heap", lambda: trims.append(1))
    monkeypatch.setattr(state, "TRIM_AFTER_SECONDS", 0.0)
    key = ("heavy result", state.SERVER_WIDE, "a" * 64)
    try:
        assert state.memo(key, lambda: [1.0] * 10) == [1.0] * 10 and trims == [1]
        assert state.memo(key, lambda: [2.0]) == [1.0] * 10 and trims == [1]
        assert state.server_memo(("another", "b" * 64), lambda: 3) == 3 and trims == [1, 1]
    finally:
        state.SERVER_CACHE.discard_where(lambda k: k in (key, ("another", "b" * 64)))
