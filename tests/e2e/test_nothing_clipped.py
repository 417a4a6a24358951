"""At 1,280 and 1,920 px wide every page renders, no page scrolls sideways, and no label, chip, select-box value,
metric or table is cut or scrolls."""

from __future__ import annotations

import pytest

from engine.pages import PAGES
from tests.e2e.conftest import EXPECTED, SIDEBAR, assert_healthy, docs_shot, settle, shot

pytestmark = pytest.mark.e2e

#: elements whose text must show whole (element scroll width <= client width): widget labels, metric labels and
#: values, captions of checkboxes and radio options (select-box values and multiselect chips: CLIPPED)
CLIPPABLE = (
    '[data-testid="stWidgetLabel"], [data-testid="stMetricLabel"], [data-testid="stMetricValue"], '
    '[data-testid="stCheckbox"] label p, [data-testid="stRadio"] label p'
)

#: pages that show a table as soon as they open
TABLES = ("data", "operating-point", "monitoring", "ensemble-paths", "batch-decisions", "audit")
#: more tables, brought out by a setting in the URL: (page, query, text to wait for)
MORE_TABLES = (
    ("monitoring", "?mon_reviewers_on=true", "one threshold per region"),  # the per-region table
    ("operating-point", "?what_if_on=true", "Second target marginal precision"),  # the what-if table
)

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
  // the value a select box shows (an input: its text is measured), the chips of a multiselect (cut with an
  // ellipsis) and their row (hidden behind a sideways scroll)
  const ruler = document.createElement('canvas').getContext('2d');
  const name = e => e.closest('[data-testid="stSelectbox"], [data-testid="stMultiSelect"]')
                     ?.querySelector('[data-testid="stWidgetLabel"]')?.innerText.slice(0, 40);
  for (const input of document.querySelectorAll('[data-testid="stSelectbox"] input[role="combobox"]')) {{
    if (input.offsetParent === null || !input.value) continue;
    const s = getComputedStyle(input);
    ruler.font = s.font;
    const room = input.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight);
    const text = ruler.measureText(input.value).width;
    if (text > room + 1) cut.push('select box "' + name(input) + '" shows "' + input.value.slice(0, 60) + '" cut ('
                                  + Math.round(text) + ' px of text in ' + Math.round(room) + ' px)');
  }}
  for (const chip of document.querySelectorAll('[data-testid="stMultiSelect"] [data-tag] span[title]')) {{
    if (chip.offsetParent !== null && chip.scrollWidth > chip.clientWidth + 1)
      cut.push('chip "' + chip.title.slice(0, 60) + '" of "' + name(chip) + '" cut');
  }}
  for (const row of document.querySelectorAll('[data-testid="stMultiSelectTagsContainer"]')) {{
    if (row.offsetParent !== null && row.scrollWidth > row.clientWidth + 1)
      cut.push('the chips of "' + name(row) + '" scroll sideways');
  }}
  for (const e of document.querySelectorAll('[data-testid="stDataFrame"] .dvn-scroller')) {{
    if (e.scrollWidth > e.clientWidth + 1) cut.push('a table scrolls sideways, ' + e.scrollWidth + ' px in '
                                                    + e.clientWidth + ' px');
  }}
  const page = document.documentElement;
  if (page.scrollWidth > page.clientWidth + 1) cut.push('the page scrolls sideways');
  return cut;
}}"""


#: true once the widths the check measures stayed the same over three polls (600 ms): the page's, each table's and
#: each label's and value's
LAYOUT_HELD = """() => {
  const widths = [document.documentElement.scrollWidth];
  for (const e of document.querySelectorAll('[data-testid="stDataFrame"] .dvn-scroller, ' + `{CLIPPABLE}`))
    widths.push(e.scrollWidth, e.clientWidth);
  const now = widths.join(','), held = window.__layout;
  window.__layout = {widths: now, polls: held && held.widths === now ? held.polls + 1 : 0};
  return window.__layout.polls >= 3;
}""".replace("{CLIPPABLE}", CLIPPABLE)
#: the widths checked, each page loaded once and measured at both (the layout follows the window without a rerun);
#: the first is the user guide's screenshots' width
WIDTHS = (1280, 1920)


def cut_at_each_width(page, name: str, table: bool, docs: bool = False) -> tuple[list[str], int]:
    """What is cut on the page as drawn at each of WIDTHS, and how many tables were drawn (summed over the widths);
    with ``docs``, the user guide's screenshot of the page at the first width (tests/e2e/conftest.py: docs_shot)."""
    found, tables = [], 0
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 1000})
        if table:
            page.wait_for_selector('[data-testid="stDataFrame"] .dvn-scroller', timeout=60_000)
        # the tables size their columns after drawing and again after a resize: measured once the layout holds
        page.evaluate("window.__layout = null")
        page.wait_for_function(LAYOUT_HELD, polling=200, timeout=30_000)
        tables += page.locator('[data-testid="stDataFrame"] .dvn-scroller').count()
        found += [f"{name} at {width} px: {cut}" for cut in page.evaluate(CLIPPED)]
        shot(page, f"clip_{width}_{name}")
        if docs and width == WIDTHS[0]:
            page.evaluate("window.scrollTo(0, 0)")
            docs_shot(page, name)
    return found, tables


def test_every_page_renders_and_nothing_is_clipped(server, browser):
    assert set(EXPECTED) == {p.url_path for p in PAGES}, "a new page needs its entry in EXPECTED"
    context = browser.new_context(viewport={"width": WIDTHS[0], "height": 1000})
    page = context.new_page()
    try:
        found, tables = [], 0
        for p in PAGES:
            query, text, charts = EXPECTED[p.url_path]
            path = ("" if p.default else p.url_path) + query  # the default page is served at the root
            page.set_viewport_size({"width": WIDTHS[0], "height": 1000})
            page.goto(f"{server}/{path}")
            settle(page, text)
            # the page renders: its charts drawn, no exception, the data it uses in the sidebar
            assert_healthy(page, charts)
            sidebar = page.locator('[data-testid="stSidebar"]').inner_text()
            assert SIDEBAR[p.url_path] in sidebar, (p.url_path, sidebar[:300])
            # every element drawn (no skeleton left), the tables' grids too; they size their columns after drawing
            # (a table in a closed expander is never drawn: the drawn ones are checked)
            page.wait_for_function(
                "() => [...document.querySelectorAll('[data-testid=\"stSkeleton\"]')]"
                "  .every(e => e.offsetParent === null)",
                timeout=60_000,
            )
            cut, drawn = cut_at_each_width(page, p.url_path, p.url_path in TABLES, docs=True)
            found, tables = found + cut, tables + drawn
        for url_path, query, text in MORE_TABLES:
            page.set_viewport_size({"width": WIDTHS[0], "height": 1000})
            page.goto(f"{server}/{url_path}{query}")
            settle(page, text)
            cut, drawn = cut_at_each_width(page, f"{url_path}{query}", True)
            found, tables = found + cut, tables + drawn
        assert tables >= len(WIDTHS) * (len(TABLES) + len(MORE_TABLES)), (
            "the tables were not drawn: nothing was checked"
        )
        assert not found, "\n".join(found)
        # the check sees a cut value and a cut chip: select boxes narrowed on a page with both kinds
        page.goto(f"{server}/ensemble-paths")
        settle(page, "Comparison")
        page.evaluate("""() => { for (const e of document.querySelectorAll('[data-testid="stSelectbox"], '
                                                                              + '[data-testid="stMultiSelect"]'))
                                   e.style.width = e.style.maxWidth = '90px'; }""")
        page.wait_for_timeout(500)
        narrowed = " ".join(page.evaluate(CLIPPED))
        assert 'select box "Rated data" shows' in narrowed and "scroll sideways" in narrowed, narrowed
    finally:
        context.close()
