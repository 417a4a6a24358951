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


@pytest.mark.parametrize("key", [
    ("qwyc", page_script_class()(0.5, False)),
    ("a", ("nested", page_script_class()(0.5, True))),
    page_script_class()(0.5, True),
])
def test_keys_holding_a_page_scripts_instance_are_refused(key):
    with pytest.raises(TypeError, match="Settings, a class of the page script"):
        check_key(key)


def test_keys_of_plain_values_and_library_objects_pass():
    from engine.io import ColumnMapping

    check_key(("audit_plan", "sha", ColumnMapping(("s",), "y", None, None), 0.5, None, True, ("x", 1)))
    check_key("one string")
