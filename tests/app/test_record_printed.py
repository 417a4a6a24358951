"""The printed decision record read back as a manager reads it: one item from every page, its text and page images.

The record is built by clicking every page's "Add to decision record" (as a meeting would), printed once by
Chromium as the Decision record page prints it, and read back with PDFium: its text (every item's decision,
every figure's title, axes and legend, every table's name in the body and in the appendix's list of attached
files) and its pages rendered to images
(a printed figure wears a thin frame of :data:`engine.reporting.FIGURE_FRAME`: a whole figure is a frame with
its top and bottom edges on one page; nothing is drawn in the right or left margin). Each check is shown to
fail on a record broken on purpose (figures allowed to split, figures wider than the page, figures drawn at the
window's width instead of the paper's). The page-by-page checks of issue 36 (blank pages, broken words, machine
names) are in test_record_page_images.py.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from engine.presentation import is_raw_name
from engine.record import record_html, record_pdf
from engine.reporting import FIGURE_FRAME, PRINT_FIGURE_HEIGHT, PRINT_FIGURE_WIDTH
from engine.resources import chromium_path
from tests.app.record_of_every_page import record_of_every_page

pdfium = pytest.importorskip("pypdfium2")
# slow: Chromium prints every page's record item (about a minute on the 2-core machine)
pytestmark = [pytest.mark.skipif(not Path(chromium_path()).exists(), reason="Chromium missing"), pytest.mark.slow]

SCALE = 2  # pixels per point: 144 dpi, the frame's 0.75 pt line covers a pixel
MARGIN = 12 / 25.4 * 72  # the record's left and right page margin, 12 mm, in points
SLACK = 1.0  # points: anti-aliasing and a bold glyph's overhang


@pytest.fixture(scope="module")
def items():
    recorded = record_of_every_page(own=False)
    assert len(recorded) == 9 and len({i.kind for i in recorded}) == 9
    return recorded


@dataclass(frozen=True)
class Page:
    width: float  # points
    height: float
    image: np.ndarray  # RGB, SCALE pixels per point
    text: str
    boxes: np.ndarray  # (left, bottom, right, top) of every printed glyph, points


def read_pdf(pdf: bytes) -> list[Page]:
    pages = []
    document = pdfium.PdfDocument(pdf)
    for page in document:
        width, height = page.get_size()
        image = page.render(scale=SCALE, rev_byteorder=True, no_smoothpath=True).to_numpy()[:, :, :3].astype(int)
        text = page.get_textpage()
        glyphs = [k for k in range(text.count_chars()) if text.get_text_range(k, 1).strip()]
        boxes = np.array([text.get_charbox(k) for k in glyphs]).reshape(-1, 4)
        pages.append(Page(width, height, image, text.get_text_range(), boxes))
    return pages


def printed_pages(items, broken: tuple[str, str] | None = None, *, static: bool = True) -> list[Page]:
    page = record_html(items, "Decision record", static=static)  # as the Decision record page prints it
    if broken:
        assert broken[0] in page, broken[0]
        page = page.replace(*broken)
    return read_pdf(record_pdf(page))


@pytest.fixture(scope="module")
def printed(items):
    return printed_pages(items)


def runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """(first, last) index of every run of True."""
    edges = np.flatnonzero(np.diff(np.concatenate([[0], mask.astype(int), [0]])))
    return list(zip(edges[::2], edges[1::2] - 1))


def frames(pages: list[Page]) -> tuple[list[tuple[int, float, float]], list[str]]:
    """Whole printed figures as (page, top, bottom) in points, and what is wrong with the others.

    A figure's frame is found by its colour: its top and bottom edges span the text width, its left edge runs
    between them. A figure split across pages shows a left edge that meets the page's end without a bottom edge
    (and one on the next page that starts without a top edge).
    """
    colour = np.array([int(FIGURE_FRAME[k : k + 2], 16) for k in (1, 3, 5)])
    whole, problems = [], []
    for number, page in enumerate(pages, start=1):
        mask = np.abs(page.image - colour).max(axis=2) <= 16
        text_width = (page.width - 2 * MARGIN) * SCALE
        edges = [(a + b) / 2 / SCALE for a, b in runs(mask.sum(axis=1) >= 0.9 * text_width)]
        left = int(round(MARGIN * SCALE))
        column = mask[:, max(left - 3, 0) : left + 4].any(axis=1)
        for a, b in runs(column):
            top, bottom = a / SCALE, b / SCALE
            if bottom - top < 20:  # a horizontal edge crossing the column, not a side
                continue
            has_top = any(abs(e - top) <= 2 for e in edges)
            has_bottom = any(abs(e - bottom) <= 2 for e in edges)
            if has_top and has_bottom:
                whole.append((number, top, bottom))
            else:
                problems.append(
                    f"page {number}: a figure {'starts' if not has_top else 'ends'} without its "
                    f"{'top' if not has_top else 'bottom'} edge at {top if not has_top else bottom:.0f} pt "
                    "(split across pages)"
                )
    return whole, problems


def cut_at_the_edges(pages: list[Page]) -> list[str]:
    """Ink in the left or right margin, and glyphs that cross the text's edges (cut by the page or by a box)."""
    problems = []
    for number, page in enumerate(pages, start=1):
        ink = page.image.min(axis=2) < 240
        lo, hi = int((MARGIN - SLACK) * SCALE), int(np.ceil((page.width - MARGIN + SLACK) * SCALE))
        right, left = ink[:, hi:].any(), ink[:, :lo].any()
        if right or left:
            rows = np.flatnonzero(ink[:, hi:].any(axis=1) | ink[:, :lo].any(axis=1)) / SCALE
            problems.append(
                f"page {number}: ink in the {'right' if right else 'left'} margin "
                f"({rows.min():.0f}–{rows.max():.0f} pt from the top)"
            )
        b = page.boxes
        crossing = (b[:, 2] > page.width - MARGIN + SLACK) | (b[:, 0] < MARGIN - SLACK)
        if crossing.any():
            problems.append(f"page {number}: {int(crossing.sum())} glyphs cross the text's edge (cut off)")
    return problems


def squeezed(text: str) -> str:
    return re.sub(r"\s+", "", html.unescape(re.sub(r"<br\s*/?>", " ", text)))


def legend_names(figure) -> list[str]:
    shown = [t.name for t in figure.data if t.name and t.showlegend is not False]
    if figure.layout.showlegend is False or (figure.layout.showlegend is None and len(shown) < 2):
        return []
    return shown


def untold(items, pages: list[Page]) -> list[str]:
    """What the printed text does not say in full: item decisions, figure titles, axes and legends, table names."""
    text = squeezed("".join(p.text for p in pages))
    missing = []
    for number, item in enumerate(items, start=1):
        wanted = [f"{number}. {item.title}", item.sentence]
        for name, figure in item.figures:
            layout = figure.layout
            wanted += [
                name,
                layout.title.text or "",
                layout.xaxis.title.text or "",
                layout.yaxis.title.text or "",
                *legend_names(figure),
            ]
        wanted += [name for name, _ in item.tables]
        missing += [f"item {number}: {w!r}" for w in wanted if w and squeezed(w) not in text]
    return missing


def test_one_item_from_every_page_prints_with_its_decision_figures_and_tables_in_words(items, printed):
    assert untold(items, printed) == []
    body = "".join(p.text for p in printed)
    assert "None" not in body and "nan" not in body.split()
    assert squeezed(body).count("Reopenthisview") == len(items) and len(printed) <= 14


def test_every_figure_is_whole_on_one_page(items, printed):
    whole, problems = frames(printed)
    assert problems == []
    assert len(whole) == sum(len(i.figures) for i in items)
    for page, top, bottom in whole:  # inside the page's text area, never in the top or bottom margin
        assert 14 / 25.4 * 72 - SLACK <= top < bottom <= printed[page - 1].height - 14 / 25.4 * 72 + SLACK
        # at full size: Chromium shrinks every page when something is wider than the paper
        assert bottom - top >= 0.75 * PRINT_FIGURE_HEIGHT - SLACK, (page, top, bottom)


def test_nothing_is_cut_at_the_edges_and_every_table_is_named_with_its_columns_in_words(items, printed):
    assert cut_at_the_edges(printed) == []
    appendix = [k for k, p in enumerate(printed) if p.text.lstrip().startswith("Appendix")]
    assert len(appendix) == 1, appendix
    body = squeezed("".join(p.text for p in printed[: appendix[0]]))
    after = squeezed("".join(p.text for p in printed[appendix[0] :]))
    for name in (name for item in items for name, _ in item.tables):
        assert squeezed(name) in body and squeezed(name) in after  # printed, and listed with its file
    page = record_html(items, "Decision record", static=True)
    headers = set(re.findall(r"<th[^>]*>([^<]*)</th>", page))
    assert not [h for h in headers if is_raw_name(h)]


def test_the_appendix_comes_after_every_item_on_a_page_of_its_own(items, printed):
    starts = [k for k, p in enumerate(printed) if p.text.lstrip().startswith("Appendix")]
    assert len(starts) == 1
    before = squeezed("".join(p.text for p in printed[: starts[0]]))
    assert squeezed(f"{len(items)}. {items[-1].title}") in before
    assert squeezed("Attached files") in squeezed(printed[starts[0]].text)


@pytest.mark.parametrize(
    "broken, static, check, says",
    [
        (
            ("break-inside:avoid;page-break-inside:avoid", ""),
            True,
            lambda items, pages: frames(pages)[1],
            "split across pages",
        ),
        (
            (f'"width":{PRINT_FIGURE_WIDTH},"autosize":false', '"width":900,"autosize":false'),
            True,
            lambda items, pages: cut_at_the_edges(pages),
            "cut off",
        ),
        (None, False, lambda items, pages: untold(items, pages), "item"),
    ],
    ids=["figures allowed to split", "figures wider than the page", "figures at the window's width"],
)
def test_the_checks_fail_on_a_record_broken_on_purpose(items, broken, static, check, says):
    problems = check(items, printed_pages(items, broken, static=static))
    assert problems and says in problems[0], problems
