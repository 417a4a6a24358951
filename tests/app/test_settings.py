"""views.settings.env_number: the one reader of the server's numeric settings."""

import logging
import math

import pytest

from views.settings import env_number


@pytest.mark.parametrize(
    ("raw", "upper", "expected"),
    [
        (None, math.inf, 60.0),
        ("", math.inf, 60.0),
        ("  ", math.inf, 60.0),
        (" 2.5 ", math.inf, 2.5),
        ("0", math.inf, 0.0),
        ("inf", math.inf, math.inf),
        ("1e3", 2**40, 1000.0),
    ],
)
def test_a_number_in_range_or_nothing_is_taken_silently(raw, upper, expected, caplog):
    environ = {} if raw is None else {"X_SECONDS": raw}
    with caplog.at_level(logging.WARNING, logger="views.settings"):
        assert env_number("X_SECONDS", 60, unit="seconds", upper=upper, environ=environ) == expected
    assert not caplog.records


@pytest.mark.parametrize(("raw", "upper"), [("abc", math.inf), ("-1", math.inf), ("nan", math.inf), ("inf", 2**40)])
def test_anything_else_keeps_the_default_and_the_log_names_the_variable(raw, upper, caplog):
    with caplog.at_level(logging.WARNING, logger="views.settings"):
        assert env_number("X_SECONDS", 60, unit="seconds", upper=upper, environ={"X_SECONDS": raw}) == 60
    assert len(caplog.records) == 1
    assert f"X_SECONDS={raw!r} is not a number of seconds >= 0: 60 seconds" in caplog.records[0].getMessage()
