"""The dashboard's pages, listed once: navigation, Home cards, "used by", record links and tests read this list.

A page is a script in the dashboard's ``pages/`` folder, named by its module (``"operating_point"`` is
``pages/operating_point.py``), with a URL path, a title, an icon, the question it
answers and the input kinds it reads (keys of :data:`engine.io.INPUT_KINDS`). The
dashboard's ``app.py`` builds its navigation from :data:`PAGES`, the Home page its
cards, the Data page its "used by" column (:func:`pages_using`), the decision record
the links that reopen a view (:func:`page_for`) — so adding a page is its script and
one line here.

Nothing here imports Streamlit: the engine and the command line read the same list.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import InputError

__all__ = ["Page", "PAGES", "page_for", "pages_using"]


@dataclass(frozen=True)
class Page:
    """One page of the dashboard.

    Attributes
    ----------
    url_path : str
        The page's path in the URL (``"operating-point"``; ``""`` is not used: Home is ``"home"``).
    title : str
        Title in the navigation and on the page.
    icon : str
        Material icon (``":material/tune:"``).
    module : str
        The page script's module name in the dashboard's ``pages/`` folder (``"operating_point"``).
    question : str
        The question the page answers, for people (the Home card).
    needs : str
        What input the page needs, for people (the Home card).
    input_kinds : tuple of str
        Keys of :data:`engine.io.INPUT_KINDS` the page reads.
    default : bool
        The page the dashboard opens on.
    """

    url_path: str
    title: str
    icon: str
    module: str
    question: str
    needs: str
    input_kinds: tuple[str, ...] = ()
    default: bool = False

    @property
    def script(self) -> str:
        """The page script's path relative to the dashboard's folder (``"pages/operating_point.py"``)."""
        return f"pages/{self.module}.py"


#: every page, in navigation order
PAGES: tuple[Page, ...] = (
    Page(
        "home",
        "Home",
        ":material/home:",
        "home",
        "Where do I start?",
        "Nothing: every page opens on a shipped sample.",
        default=True,
    ),
    Page(
        "data",
        "Data",
        ":material/upload_file:",
        "data",
        "What is in my file, and is it valid?",
        "Any input: upload a file or pick a shipped sample.",
    ),
    Page(
        "operating-point",
        "Operating point",
        ":material/tune:",
        "operating_point",
        "Which threshold makes one more true positive cost at most c false positives — and how do I spend "
        "N reviews across segments?",
        "Rated data (scores + raters' verdicts).",
        ("rated",),
    ),
    Page(
        "monitoring",
        "Monitoring",
        ":material/monitoring:",
        "monitoring",
        "Does the deployed threshold still meet its target, week after week — and what is it worth, and can the "
        "reviewers keep up?",
        "Rated data with the day each document was rated.",
        ("dated",),
    ),
    Page(
        "ensemble-paths",
        "Ensemble paths",
        ":material/timeline:",
        "ensemble_paths",
        "Which joint thresholds for 2+ classifiers combined with OR / AND?",
        "Rated data with 2+ score columns, or aggregated counts.",
        ("rated", "counts"),
    ),
    Page(
        "batch-decisions",
        "Batch decisions",
        ":material/checklist:",
        "batch_decisions",
        "How many items of each batch to flag so F1, Jaccard … is best in expectation?",
        "Probability batches.",
        ("batches",),
    ),
    Page(
        "early-exit",
        "Early exit (QWYC)",
        ":material/speed:",
        "early_exit",
        "How few trees can my boosted model evaluate without changing its decisions?",
        "A model file + a feature table, or a score matrix.",
        ("model_file", "feature_table", "score_matrix"),
    ),
    Page(
        "constraints",
        "Constrained training",
        ":material/balance:",
        "constraints",
        "What does a fair (or low-churn) model cost in error?",
        "A training table with a protected group.",
        ("training_table",),
    ),
    Page(
        "audit",
        "Below the line",
        ":material/troubleshoot:",
        "audit",
        "How many positives does the review line miss? Plan a random audit of the unflagged documents and "
        "estimate recall with intervals.",
        "Every scored document (a population) and, once reviewed, the audit.",
        ("population", "audit", "rated"),
    ),
    Page(
        "record",
        "Decision record",
        ":material/description:",
        "record",
        "What did we decide today, and why?",
        "Items added from the other pages.",
    ),
    Page(
        "decisions",
        "Decisions",
        ":material/gavel:",
        "decisions",
        "Which thresholds were proposed, approved, deployed and retired — by whom, when, and on what evidence?",
        "Decisions proposed from the other pages (Propose decision).",
    ),
    Page(
        "access",
        "Access",
        ":material/badge:",
        "access",
        "Who am I here, and what may I do? Admins grant and revoke roles.",
        "Nothing: your login and the workspace's grants.",
    ),
)


def page_for(url_path: str) -> Page:
    """The page at a URL path.

    Parameters
    ----------
    url_path : str
        The path without slashes or query (``"operating-point"``).

    Returns
    -------
    Page

    Raises
    ------
    InputError
        No page has that path.
    """
    for page in PAGES:
        if page.url_path == url_path:
            return page
    raise InputError(f"There is no page {url_path[:60]!r}; pages are {', '.join(p.url_path for p in PAGES)}.")


def pages_using(kind: str) -> tuple[Page, ...]:
    """The pages that read inputs of one kind, in navigation order.

    Parameters
    ----------
    kind : str
        Key of :data:`engine.io.INPUT_KINDS`.

    Returns
    -------
    tuple of Page
        Empty when no page reads that kind.
    """
    return tuple(page for page in PAGES if kind in page.input_kinds)
