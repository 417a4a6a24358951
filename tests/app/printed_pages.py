"""A printed PDF read back as a reader sees it: every page rendered to an image and its text with the boxes of its
words (PDFium), and the checks a stakeholder document must pass.

- how much of each page holds content (a page that ends its content in its top part is mostly blank);
- text outside the printable area (cut by the paper's edge) and text boxes that overlap (a tick label run into a
  legend, a table cell into its neighbour);
- words and numbers broken across lines without a hyphen, found with the record's own vocabulary: two pieces on
  consecutive lines that together make a word or a number the record prints, while one of them alone does not;
- machine names (``snake_case`` identifiers) and raw values (``None``, ``inf``, ``nan``, ``False``).
"""

from __future__ import annotations

import ctypes
import html
import re
from dataclasses import dataclass

import numpy as np

#: pixels per point of the page images
SCALE = 1.0
#: the printed page's margins in points (engine.reporting.PAGE_MARGIN_MM: 14 mm top and bottom, 12 mm sides)
MM = 72 / 25.4
#: a page is "mostly blank" when its content ends above this share of its printable height
FILLED = 0.4
#: raw values no reader should meet
RAW_VALUES = re.compile(r"(?<![\w.])(None|inf|-inf|nan|NaN|False|null|NaT)(?![\w.])")
#: a machine identifier: lower-case words joined by underscores
SNAKE = re.compile(r"(?<![\w./-])[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?![\w-])")
_EDGE = ".,;:!?()[]{}\"'«»“”‘’…"


@dataclass(frozen=True)
class Word:
    """A word as printed: its text and its box (left, bottom, right, top) in points, y upwards."""

    text: str
    box: tuple[float, float, float, float]


@dataclass(frozen=True)
class PrintedPage:
    number: int
    width: float
    height: float
    image: np.ndarray  # grey levels, SCALE pixels per point, top row first
    text: str
    words: tuple[Word, ...]
    chars: np.ndarray  # (left, bottom, right, top) of every printed glyph, and the index of its word


def read_pages(pdf: bytes) -> list[PrintedPage]:
    import pypdfium2 as pdfium

    pages = []
    document = pdfium.PdfDocument(pdf)
    try:
        for number, page in enumerate(document, start=1):
            width, height = page.get_size()
            image = page.render(scale=SCALE, grayscale=True).to_numpy()
            image = image if image.ndim == 2 else image[:, :, 0]
            textpage = page.get_textpage()
            words, chars = _words(textpage)
            pages.append(PrintedPage(number, width, height, image, textpage.get_text_range(), words, chars))
    finally:
        document.close()
    return pages


def _words(textpage) -> tuple[tuple[Word, ...], np.ndarray]:
    """Words as runs of glyphs between spaces and line changes, with their boxes and their glyphs' boxes."""
    words, chars, current, boxes = [], [], [], []

    def close():
        if current:
            b = np.array(boxes)
            words.append(Word("".join(current), (b[:, 0].min(), b[:, 1].min(), b[:, 2].max(), b[:, 3].max())))
            chars.extend((*box, len(words) - 1) for box in boxes)
            current.clear()
            boxes.clear()

    from pypdfium2 import raw

    previous, turned = None, 0.0
    for k in range(textpage.count_chars()):
        c = textpage.get_text_range(k, 1)
        if not c or c.isspace():
            close()
            previous = None
            continue
        box = textpage.get_charbox(k)
        x, y = ctypes.c_double(), ctypes.c_double()
        raw.FPDFText_GetCharOrigin(textpage.raw, k, ctypes.byref(x), ctypes.byref(y))
        origin = (x.value, y.value)
        angle = round(raw.FPDFText_GetCharAngle(textpage.raw, k), 2)
        if previous is not None and angle != turned:
            close()  # text at another angle (a figure's rotated axis title or tick labels)
        elif previous is not None and angle == 0 and (abs(origin[1] - previous[1]) > 2 or origin[0] < previous[0] - 1):
            close()  # a new line (or a jump back) without a space between
        current.append(c)
        boxes.append(box)
        previous, turned = origin, angle
    close()
    return tuple(words), np.array(chars, dtype=float).reshape(-1, 5)


def fill(page: PrintedPage) -> float:
    """How far down the printable area the page's content reaches (0: empty, 1: to the bottom margin)."""
    top, bottom = 14 * MM * SCALE, (page.height - 14 * MM) * SCALE
    ink = np.flatnonzero((page.image < 230).any(axis=1))
    if ink.size == 0:
        return 0.0
    return float(np.clip((ink.max() - top) / (bottom - top), 0, 1))


def mostly_blank(pages: list[PrintedPage], chapter_starts: list[int]) -> list[str]:
    """Pages whose content ends above :data:`FILLED` of the page, except the last page of a chapter (the page before
    a chapter starts, and the last page)."""
    last_of_chapter = {k - 1 for k in chapter_starts} | {pages[-1].number}
    return [
        f"page {p.number}: content ends at {fill(p):.0%} of the page"
        for p in pages
        if p.number not in last_of_chapter and fill(p) < FILLED
    ]


def outside(pages: list[PrintedPage], slack: float = 1.0) -> list[str]:
    """Glyphs outside the printable area (the page less its margins)."""
    problems = []
    for p in pages:
        c = p.chars
        if not c.size:
            continue
        bad = (
            (c[:, 0] < 12 * MM - slack)
            | (c[:, 2] > p.width - 12 * MM + slack)
            | (c[:, 1] < 14 * MM - slack)
            | (c[:, 3] > p.height - 14 * MM + slack)
        )
        if bad.any():
            which = sorted({p.words[int(i)].text for i in c[bad, 4]})[:5]
            problems.append(f"page {p.number}: {int(bad.sum())} glyphs outside the printable area ({which})")
    return problems


def overlapping(pages: list[PrintedPage], share: float = 0.3) -> list[str]:
    """Glyphs of different words whose boxes overlap by more than ``share`` of the smaller one."""
    problems = []
    for p in pages:
        c = p.chars
        if len(c) < 2:
            continue
        left, bottom, right, top, word = (c[:, k] for k in range(5))
        w = np.maximum(0, np.minimum(right[:, None], right[None, :]) - np.maximum(left[:, None], left[None, :]))
        h = np.maximum(0, np.minimum(top[:, None], top[None, :]) - np.maximum(bottom[:, None], bottom[None, :]))
        area = (right - left) * (top - bottom)
        smaller = np.maximum(np.minimum(area[:, None], area[None, :]), 1e-6)
        hit = (w * h > share * smaller) & (word[:, None] != word[None, :])
        pairs = {tuple(sorted((int(word[i]), int(word[j])))) for i, j in zip(*np.nonzero(np.triu(hit, 1)))}
        if pairs:
            shown = [f"{p.words[a].text!r}/{p.words[b].text!r}" for a, b in sorted(pairs)[:5]]
            problems.append(f"page {p.number}: {len(pairs)} pairs of words overlap ({', '.join(shown)})")
    return problems


def _bare(text: str) -> str:
    return text.strip(_EDGE)


def vocabulary(texts) -> set[str]:
    """The words and numbers a record prints (its text split at white space, outer punctuation removed)."""
    words = set()
    for text in texts:
        words |= {_bare(w) for w in re.sub(r"<[^>]+>", " ", html.unescape(str(text))).split()}
    return {w for w in words if w}


def broken(pages: list[PrintedPage], vocab: set[str]) -> list[str]:
    """Pieces of one word or number printed on two consecutive lines without a hyphen: the end of a word on one
    line and a word starting the next line of the same column that together make a word of ``vocab`` (and at
    least one of them alone is not one)."""
    problems = []
    for p in pages:  # a piece ends in a letter or a digit, or in a digit and a hyphen (a date or a range cut)
        words = [w for w in p.words if re.search(r"([A-Za-z0-9]|\d[-–−])$", w.text)]
        starts = [w for w in p.words if re.match(r"^[A-Za-z0-9]", w.text)]
        for a in words:
            a_left, a_bottom, a_right, a_top = a.box
            line = a_top - a_bottom
            for b in starts:
                b_left, _, _, b_top = b.box
                below = 0.5 * line < a_bottom - b_top + line < 2.2 * line  # the next line down
                if not below or not (a_left - 250 <= b_left <= a_right):
                    continue
                whole = _bare(a.text + b.text)
                if whole in vocab and not (_bare(a.text) in vocab and _bare(b.text) in vocab):
                    problems.append(f"page {p.number}: {a.text!r} | {b.text!r} (is {whole!r})")
    return problems


def machine_names(pages: list[PrintedPage], allowed: set[str]) -> list[str]:
    """snake_case identifiers printed (the user's own column and file names in ``allowed`` aside)."""
    found = []
    for p in pages:
        for w in p.words:
            for name in SNAKE.findall(w.text):
                if name not in allowed and not any(name in a for a in allowed):
                    found.append(f"page {p.number}: {name!r} in {w.text!r}")
    return found


def raw_values(pages: list[PrintedPage]) -> list[str]:
    return [f"page {p.number}: {m!r}" for p in pages for w in p.words for m in RAW_VALUES.findall(_bare(w.text))]
