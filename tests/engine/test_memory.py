"""engine/memory.py: results weighed as NumPy and pandas count them, held under a byte budget, least recently used
evicted first, each computed once however many threads ask.

Oracles: NumPy's ``nbytes`` and pandas' ``memory_usage(deep=True)``; a plain list replaying the same operations as an
LRU (hypothesis draws the operations and the sizes); threads that count their calls.
"""

import sys
import threading
import time
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.memory import ByteBudgetCache, deep_size


def test_arrays_weigh_their_buffer_once_however_many_views_reach_it():
    a = np.zeros((300, 40))
    assert deep_size(a) == a.nbytes
    assert deep_size([a, a[:10], a.T, a[::2, 1]]) == a.nbytes + sys.getsizeof([a, a, a, a])
    b = np.ones(1000, dtype=np.int32)
    assert deep_size((a[5:], b)) == a.nbytes + b.nbytes + sys.getsizeof((a, b))


def test_pandas_objects_weigh_what_pandas_says_with_their_text():
    frame = pd.DataFrame({"x": np.arange(5000.0), "s": [f"row {i}" for i in range(5000)]})
    assert deep_size(frame) == frame.memory_usage(deep=True).sum()
    assert deep_size(frame["s"]) == frame["s"].memory_usage(deep=True)
    assert deep_size(frame["s"]) > 5000 * len("row 1")  # the strings, not just their pointers


@dataclass(frozen=True)
class Result:
    table: pd.DataFrame
    arrays: tuple
    note: str


def test_dataclasses_containers_and_cycles_are_followed():
    a, b = np.zeros(10_000), np.zeros((50, 50))
    frame = pd.DataFrame({"v": np.arange(100.0)})
    result = Result(frame, (a, {"b": b, "again": a}), "text")
    size = deep_size(result)
    assert a.nbytes + b.nbytes + frame.memory_usage(deep=True).sum() < size < a.nbytes + b.nbytes + 20_000
    loop: list = [a]
    loop.append(loop)
    assert a.nbytes < deep_size(loop) < a.nbytes + 1000


@settings(max_examples=200, deadline=None)
@given(
    budget=st.integers(0, 100),
    ops=st.lists(st.tuples(st.sampled_from("gdlpw"), st.integers(0, 9), st.integers(0, 60)), max_size=60),
)
def test_the_cache_holds_what_a_plain_lru_list_holds(budget, ops):
    # g: get_or_compute, d: discard, l: lookup, p: put, w: discard_where (keys of the same parity as this one)
    cache = ByteBudgetCache(budget)
    lru: list = []  # [(key, size)], least recently used first
    computed = []
    missing = object()
    for op, key, size in ops:
        known = next((s for k, s in lru if k == key), None)
        if op == "d":
            assert cache.discard(key) == (known is not None)
            lru = [(k, s) for k, s in lru if k != key]
        elif op == "l":
            value = cache.lookup(key, missing)
            assert (value is missing) == (known is None)
            if known is not None:  # a use: now the most recently used
                assert value[0] == key
                lru = [(k, s) for k, s in lru if k != key] + [(key, known)]
        elif op == "w":
            kept = [(k, s) for k, s in lru if k % 2 != key % 2]
            assert cache.discard_where(lambda k, parity=key % 2: k % 2 == parity) == len(lru) - len(kept)
            lru = kept
        elif op == "p":
            lru = [(k, s) for k, s in lru if k != key]  # replaced
            if size <= budget:
                lru.append((key, size))
                while sum(s for _, s in lru) > budget:
                    lru.pop(0)
            assert cache.put(key, (key, size), size=size) == any(k == key for k, _ in lru)
        if op != "g":
            assert [(e.key, e.nbytes) for e in cache.held()] == lru
            continue
        value = cache.get_or_compute(key, lambda k=key, s=size: computed.append(k) or (k, s), size=size)
        if known is not None:  # held: returned as stored, nothing computed, now the most recently used
            assert value[0] == key and not computed
            lru = [(k, s) for k, s in lru if k != key] + [(key, known)]
        else:
            assert computed == [key] and value == (key, size)
            if size <= budget:
                lru.append((key, size))
                while sum(s for _, s in lru) > budget:
                    lru.pop(0)
        computed.clear()
        assert [(e.key, e.nbytes) for e in cache.held()] == lru
        assert cache.nbytes == sum(s for _, s in lru) <= budget


def test_sizes_are_measured_when_not_given_and_a_result_over_the_budget_is_not_held():
    cache = ByteBudgetCache(1_000_000)
    small = cache.get_or_compute("small", lambda: np.zeros(1000))
    assert cache.held()[0].nbytes == small.nbytes
    big = cache.get_or_compute("big", lambda: np.zeros(200_000))  # 1.6 MB
    assert big.size == 200_000 and "big" not in cache and "small" in cache
    cache.get_or_compute("small", lambda: pytest.fail("held: not computed again"))
    assert cache.held()[0].hits == 1
    assert "0.0 MB of 1 MB held in 1 results" in cache.report()


def test_a_key_is_computed_once_while_others_wait_for_it():
    cache = ByteBudgetCache(10**6)
    calls, started = [], threading.Event()

    def slow():
        calls.append(1)
        started.set()
        time.sleep(0.3)
        return np.arange(10)

    results = []
    threads = [threading.Thread(target=lambda: results.append(cache.get_or_compute("k", slow))) for _ in range(5)]
    threads[0].start()
    started.wait(5)
    for t in threads[1:]:
        t.start()
    for t in threads:
        t.join(10)
    assert len(calls) == 1 and len(results) == 5 and all(r is results[0] for r in results)


def test_a_failed_computation_is_not_kept_and_a_waiting_caller_computes_it_again():
    cache = ByteBudgetCache(10**6)
    entered, release = threading.Event(), threading.Event()

    def failing():
        entered.set()
        release.wait(5)
        raise RuntimeError("boom")

    errors, got = [], []

    def first():
        try:
            cache.get_or_compute("k", failing)
        except RuntimeError as exc:
            errors.append(exc)

    t1 = threading.Thread(target=first)
    t1.start()
    entered.wait(5)
    t2 = threading.Thread(target=lambda: got.append(cache.get_or_compute("k", lambda: "second")))
    t2.start()
    time.sleep(0.1)
    release.set()
    t1.join(5)
    t2.join(5)
    assert len(errors) == 1 and got == ["second"] and "k" in cache


def test_clear_empties_and_a_negative_budget_is_refused():
    cache = ByteBudgetCache(100)
    cache.get_or_compute(1, lambda: 1, size=10)
    cache.clear()
    assert len(cache) == 0 and cache.nbytes == 0
    with pytest.raises(ValueError, match="budget"):
        ByteBudgetCache(-1)


def test_object_arrays_weigh_each_text_and_number_once_and_follow_the_rest():
    text, shared = "x" * 100, ("kept", 1)
    cells = np.array(
        [text, text, "y" * 7, 3, 2.5, None, b"ab", shared, [10**20, "zz"], {"k": np.arange(5)}], dtype=object
    )
    expected = (
        cells.nbytes
        + sum(sys.getsizeof(v) for v in (text, "y" * 7, 3, 2.5, None, b"ab"))  # the text held twice, counted once
        + deep_size(shared)
        + deep_size([10**20, "zz"])
        + deep_size({"k": np.arange(5)})
    )
    assert deep_size(cells) == expected
    # the same cells reached twice (the array and a list holding its texts) are counted once
    assert deep_size([cells, [text, 3]]) == expected + sys.getsizeof([cells, [text, 3]]) + sys.getsizeof([text, 3])
