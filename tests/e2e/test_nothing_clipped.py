"""At 1,280 and 1,920 px wide no page scrolls sideways, and no label, chip, metric or table is cut or scrolls."""

from __future__ import annotations

import pytest

from engine.pages import PAGES
from tests.e2e.conftest import settle, shot
from tests.e2e.test_browser import EXPECTED

pytestmark = pytest.mark.e2e

#: elements whose text must show whole (element scroll width <= client width): widget labels, metric labels and
#: values, chips of multiselects, captions of tabs and radio options
CLIPPABLE = ('[data-testid="stWidgetLabel"], [data-testid="stMetricLabel"], [data-testid="stMetricValue"], '
             '[data-baseweb="tag"] span, [data-testid="stCheckbox"] label p, [data-testid="stRadio"] label p')

#: pages that show a table as soon as they open
TABLES = ("data", "operating-point", "ensemble-paths", "batch-decisions")

CLIPPED = f"""() => {{
  const cut = [];
  const hidden = e => {{ const s = getComputedStyle(e); return s.overflow !== 'visible' || s.overflowX !== 'visible'
                                                            || s.textOverflow === 'ellipsis'; }};
  for (const box of document.querySelectorAll('{CLIPPABLE}')) {{
    for (const e of [box, ...box.querySelectorAll('*'), box.parentElement]) {{
      if (e && e.offsetParent !== null && hidden(e) && e.scrollWidth > e.clientWidth + 1) {{
        cut.push(box.innerText.slice(0, 60)); break;
      }}
    }}
  }}
  for (const e of document.querySelectorAll('[data-testid="stDataFrame"] .dvn-scroller')) {{
    if (e.scrollWidth > e.clientWidth + 1) cut.push('a table scrolls sideways, ' + e.scrollWidth + ' px in '
                                                    + e.clientWidth + ' px');
  }}
  const page = document.documentElement;
  if (page.scrollWidth > page.clientWidth + 1) cut.push('the page scrolls sideways');
  return cut;
}}"""


@pytest.mark.parametrize("width", [1280, 1920])
def test_nothing_is_clipped(server, browser, width):
    context = browser.new_context(viewport={"width": width, "height": 1000})
    page = context.new_page()
    try:
        found, tables = [], 0
        for p in PAGES:
            query, text, _ = EXPECTED.get(p.url_path, ("", p.title, 0))
            path = ("" if p.default else p.url_path) + query
            page.goto(f"{server}/{path}")
            settle(page, text)
            # every element drawn (no skeleton left), the tables' grids too; they size their columns after drawing
            # (a table in a closed expander is never drawn: the drawn ones are checked)
            page.wait_for_function("() => [...document.querySelectorAll('[data-testid=\"stSkeleton\"]')]"
                                   "  .every(e => e.offsetParent === null)", timeout=60_000)
            if p.url_path in TABLES:
                page.wait_for_selector('[data-testid="stDataFrame"] .dvn-scroller', timeout=60_000)
            page.wait_for_timeout(1500)
            tables += page.locator('[data-testid="stDataFrame"] .dvn-scroller').count()
            found += [f"{p.url_path}: {cut}" for cut in page.evaluate(CLIPPED)]
            shot(page, f"clip_{width}_{p.url_path}")
        assert tables >= len(TABLES), "the tables were not drawn: nothing was checked"
        assert not found, "\n".join(found)
    finally:
        context.close()
