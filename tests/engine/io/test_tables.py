"""engine.io.tables: the vectorised reading of plain text agrees with the line-by-line reading."""

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.io.tables import _layout

@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["0.5,1", "0.25,0", "", "   ", " \t", "x", "1,2,3", "a,b", ",", " , "]),
                min_size=1, max_size=12), st.booleans(), st.sampled_from([",", ";"]))
def test_vectorised_layout_equals_the_line_by_line_reading(lines, trailing_newline, delimiter):
    text = "\n".join(line.replace(",", delimiter) for line in lines) + ("\n" if trailing_newline else "")
    kept = [line for line in text.splitlines() if line.strip()]
    layout = _layout(text, delimiter)
    assert layout.head == kept[:201]
    assert layout.counts.tolist() == [line.count(delimiter) + 1 for line in kept]
    assert [line for line in layout.body.splitlines() if line.strip()] == kept
    assert all(line.strip() for line in layout.body.rstrip("\n").split("\n")) or not kept
