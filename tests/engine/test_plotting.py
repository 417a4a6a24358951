"""engine.plotting: the studio's shared figure pieces."""

import json

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio

from engine.plotting import FigureParts, thin


def test_drawing_a_figure_never_changes_its_still_part():
    still = go.Figure(go.Scatter(x=np.arange(5.0), y=np.arange(5.0) ** 2, name="curve"))
    still.add_hline(y=2.0)
    parts = FigureParts.of(still)
    before = pio.to_json(go.Figure(parts.still))
    first = parts.draw(
        traces=[dict(type="scatter", x=[1], y=[1], name="mark")],
        shapes=[dict(type="line", x0=0, x1=1, y0=0, y1=1)],
        annotations=[dict(text="a", x=0, y=0)],
    )
    assert [t.name for t in first.data] == ["curve", "mark"]
    assert len(first.layout.shapes) == 2 and len(first.layout.annotations) == 1
    # a caller changing what it was given (a report resizing a figure, say) must not reach the next step's figure
    first.update_layout(width=300, title="changed")
    first.data[0].x = [9, 9]
    first.layout.shapes[0].y0 = 7
    still.update_layout(title="changed too")
    assert pio.to_json(go.Figure(parts.still)) == before
    again = parts.draw()
    assert json.loads(pio.to_json(again)) == json.loads(before)


def test_thin_keeps_the_ends_and_at_most_about_max_points():
    keep = thin(10_001, 600)
    assert keep[0] == 0 and keep[-1] == 10_000 and keep.size <= 601 and np.all(np.diff(keep) > 0)
    np.testing.assert_array_equal(thin(5, 600), np.arange(5))
