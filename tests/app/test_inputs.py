"""Shipped samples are read once per server: every session's input shares the same read-only objects (issue 25)."""

from engine.io import samples_of_kind
from views.inputs import shared_sample

PAGE = "pages/data.py"


def sample_inputs(at) -> dict:
    return {i.sample_key: i for i in at.session_state["_inputs"].values() if i.source == "sample"}


def test_two_sessions_share_the_sample_data_not_copies(app):
    first, second = app(page=PAGE), app(page=PAGE)  # two AppTests: two sessions of one server process
    a, b = sample_inputs(first), sample_inputs(second)
    key = next(iter(samples_of_kind("rated")))
    assert key in a and key in b
    assert a[key].value is b[key].value and a[key].table is b[key].table  # one copy per server
    assert a[key].value is shared_sample(key).value
