"""Sphinx configuration of the Operating Point Studio documentation site.

Built in CI with warnings as errors (``tests/test_docs.py``)::

    sphinx-build -W --keep-going -b html docs docs/_build/html

Why Sphinx: the engine's docstrings are numpydoc (as scikit-learn's and fairlearn's, both documented with
Sphinx), autosummary lists each package's public names from its ``__all__``, and the pages are Markdown (MyST).
"""

from __future__ import annotations

import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))  # the checkout's engine (an editable install maps the same folder)
sys.path.insert(0, str(DOCS / "_ext"))

import engine  # noqa: E402

project = "Operating Point Studio"
author = "Operating Point Studio contributors"
copyright = "2026, Operating Point Studio contributors"
version = release = engine.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.doctest",
    "sphinx.ext.mathjax",
    "numpydoc",
    "opstudio_docs",  # docs/_ext: the API pages from each __all__, the CLI reference from the parsers
]

source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build", "**/_build", "Thumbs.db", ".DS_Store"]
# pages being written elsewhere: the toctrees name them with globs (`team*`), and while one has not landed its empty
# glob is not an error (docs/_ext/opstudio_docs.py); any other empty glob still is
opstudio_pending_pages = [
    "team",
    "workspace",
    "performance",
    "monitoring",
    "audit",
    "methods/monitoring",
    "methods/audit",
    "user-guide/data",
    "user-guide/record",
]

myst_enable_extensions = ["colon_fence", "deflist", "dollarmath"]
myst_heading_anchors = 3

# the docstrings carry their types in numpydoc sections: signatures stay short, no type cross-references to resolve
autodoc_typehints = "none"
autodoc_member_order = "bysource"
autosummary_generate = False
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_validation_checks: set[str] = set()

# docstring examples run as doctests in the test suite (tests/test_doctests.py); the doctest builder runs the
# pages' own {doctest} blocks
doctest_test_doctest_blocks = ""
doctest_global_setup = f"import os; os.chdir({str(ROOT)!r})"

html_theme = "furo"
html_title = f"Operating Point Studio {release}"
html_static_path = ["_static"]
html_show_sourcelink = False
