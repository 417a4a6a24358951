"""The printed decision record looked at page by page (issue 36): a record with an item from every page on the
shipped samples and three more on files of the user's own, exported as PDF as the Decision record page exports
it, every page rendered to an image and its text read back with PDFium (tests/app/printed_pages.py).

A stakeholder document: at most 16 pages for these 12 items, no page mostly blank (except a chapter's last), no
text outside the printable area or over other text, no word or number broken across lines, no machine name and no
raw ``None``/``inf``/``nan``/``False``; every table attached as a CSV file. Each check is shown to fail on a record
broken on purpose.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import pandas as pd
import pytest

from engine.io import SAMPLES, read_table, sample_path
from engine.record import record_attachments, record_html, record_pdf
from engine.resources import chromium_path
from tests.app import printed_pages as pp
from tests.app.record_of_every_page import MAMMOGRAPHY, OWN, record_of_every_page

pytest.importorskip("pypdfium2")
# slow: the module prints two records through Chromium and reads every page image back (20-30 s)
pytestmark = [pytest.mark.skipif(not Path(chromium_path()).exists(), reason="Chromium missing"), pytest.mark.slow]

#: the issue's numbers for a record of 12 items
MAX_PAGES = 16


@pytest.fixture(scope="module")
def items():
    if not MAMMOGRAPHY.exists():
        pytest.skip("shared/data (the public data the own files are made from) is not beside the checkout")
    recorded = record_of_every_page()
    assert len(recorded) == 12 and {i.kind for i in recorded} >= {
        "operating point",
        "segments",
        "monitoring",
        "joint thresholds",
        "batch decision",
        "early-exit policy",
        "constrained model",
        "audit plan",
        "audit",
    }
    return recorded


@pytest.fixture(scope="module")
def pdf(items):
    return record_pdf(items)


@pytest.fixture(scope="module")
def pages(pdf):
    return pp.read_pages(pdf)


def figure_texts(items) -> list[str]:
    texts = []
    for item in items:
        for _, figure in item.figures:
            layout = figure.layout
            texts += [layout.title.text or "", layout.xaxis.title.text or "", layout.yaxis.title.text or ""]
            texts += [t.name or "" for t in figure.data]
    return texts


def vocabulary_of(items, page: str) -> set[str]:
    """The words and numbers the record prints: its HTML's text (scripts aside) and its figures' texts."""
    return pp.vocabulary([re.sub(r"<script.*?</script>", " ", page, flags=re.S), *figure_texts(items)])


def chapter_starts(pages) -> list[int]:
    return [p.number for p in pages if p.text.lstrip().startswith("Appendix")]


def users_names() -> set[str]:
    """Names that are the user's, not the machine's: the inputs' column names and file names (shipped and own)."""
    names = {Path(s.file).name.split(".")[0] for s in SAMPLES.values()} | {Path(s.file).name for s in SAMPLES.values()}
    for key, s in SAMPLES.items():
        if s.file.endswith((".csv", ".csv.gz")):
            names |= {str(c) for c in read_table(str(sample_path(key))).frame.columns}
    for name, _, make, _, _ in OWN:
        names |= {name, *pd.read_csv(io.BytesIO(make()), nrows=1).columns}
    return names | {"income_over_50k", "adult_training_table"}


def test_a_record_of_twelve_items_prints_in_at_most_16_pages_none_mostly_blank(pages):
    assert len(pages) <= MAX_PAGES, len(pages)
    starts = chapter_starts(pages)
    assert len(starts) == 1 and starts[0] == len(pages), starts  # the appendix: the last chapter, one page
    assert pp.mostly_blank(pages, starts) == []


def test_no_text_outside_the_printable_area_or_over_other_text(pages):
    assert pp.outside(pages) == []
    assert pp.overlapping(pages) == []


def test_no_word_or_number_is_broken_across_lines(items, pages):
    vocab = vocabulary_of(items, record_html(items, static=True))
    assert {"documents", "stratum", "alert"} <= vocab  # the words the issue found broken are printed
    assert pp.broken(pages, vocab) == []


def test_no_machine_name_and_no_raw_value(pages):
    assert pp.machine_names(pages, users_names()) == []
    assert pp.raw_values(pages) == []
    text = " ".join(p.text for p in pages)
    for machine in ("target_marginal_precision", "fp_per_extra_tp", "marginal_precision_above", "objective_gap"):
        assert machine not in text
    assert "backend" not in text and "data:text" not in text


def test_every_table_is_attached_to_the_pdf_as_a_csv_file(items, pdf):
    from pypdf import PdfReader

    attached = PdfReader(io.BytesIO(pdf)).attachments
    expected = record_attachments(items)
    assert len(expected) == sum(len(i.tables) for i in items)
    assert sorted(attached) == sorted(name for name, _ in expected)
    for name, data in expected:
        assert attached[name] == [data]
    # every digit: the attached sweep is the engine's table
    name, data = expected[0]
    sweep = pd.read_csv(io.BytesIO(data))
    pd.testing.assert_frame_equal(sweep, items[0].tables[0][1].reset_index(drop=True), check_dtype=False)


def test_the_batch_item_names_its_file_and_the_monitoring_item_says_it_in_one_sentence(items, pages):
    batches = [i for i in items if i.kind == "batch decision"]
    sources = [i.provenance["settings"]["source"] for i in batches]
    assert sources[0] == "bank_marketing_batches.csv.gz" and sources[1].startswith("bank_batches.csv"), sources
    for item in items:
        assert item.sentence.count(". ") == 0 and len(item.sentence) <= 300, (item.kind, item.sentence)
    monitoring = [i for i in items if i.kind == "monitoring"]
    assert all(i.details for i in monitoring)


# --- each check fails on a record broken on purpose -----------------------------------------------------------


def printed(items, *broken: tuple[str, str]) -> list:
    page = record_html(items, static=True)
    for old, new in broken:
        assert old in page, old
        page = page.replace(old, new)
    return pp.read_pages(record_pdf(page))


@pytest.fixture(scope="module")
def few(items):
    """A few items: the operating point, the segments, the audit (its strata figure has rotated labels)."""
    return [items[0], items[1], items[8]]


def test_the_checks_see_words_broken_and_text_cut_or_overlapping(few):
    squeezed = printed(few, ("td.n,.nw{white-space:nowrap}", "td,th{word-break:break-all}table{width:60%!important}"))
    assert pp.broken(squeezed, vocabulary_of(few, record_html(few, static=True)))
    cut = printed(few, ("@page{size:A4;margin:14mm 12mm}", "@page{size:A4;margin:4mm 2mm}"))
    assert pp.outside(cut)
    # the legend back where it ran into the strata's rotated tick labels (under the plot, in the plot's coordinates)
    legend = printed(
        few,
        (
            '"y":0.005,"yanchor":"bottom","font":{"size":10},"yref":"container"}',
            '"y":-0.18,"yanchor":"top","font":{"size":10},"yref":"paper"}',
        ),
        ('"tickangle":0', '"tickangle":30'),
    )
    assert pp.overlapping(legend)


def test_the_blank_page_check_sees_a_page_broken_after_each_item(few, pages):
    loose = printed(few, (".chapter{break-before:page;", "h2{break-before:page}.chapter{break-before:page;"))
    assert pp.mostly_blank(loose, chapter_starts(loose))
