"""Every file of the hostile corpus through the Data page's uploader (AppTest): a message, never an exception."""

import time

import pytest
from streamlit.testing.v1 import AppTest

from tests.app.conftest import APP
from tests.fuzz.corpus import corpus

SKIP = {"gzip_bomb.csv.gz"}  # 600 MB inflated: covered by the loader fuzz test, too slow to repeat per page


@pytest.mark.slow
def test_every_odd_file_through_the_data_page_uploader():
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    at.switch_page("pages/data.py").run()
    at.radio(key="data_source").set_value("Upload a file").run()
    slow, failures = [], []
    for name, raw in corpus().items():
        if name in SKIP:
            continue
        started = time.perf_counter()
        at.file_uploader(key="upload").set_value((name, raw, "application/octet-stream")).run()
        seconds = time.perf_counter() - started
        if at.exception:
            failures.append((name, at.exception[0].value[:200]))
        said = [e.value for e in (*at.error, *at.warning, *at.info, *at.success)]
        accepted = any(h.value == "Column mapping" for h in at.subheader)  # read: its mapping form is shown
        if not said and not accepted:
            failures.append((name, "neither a message nor a mapping form"))
        if seconds > 10:
            slow.append((name, round(seconds, 1)))
        # a message about the file names it, never the placeholder 'upload'
        errors = " ".join(e.value for e in at.error)
        if errors and "'upload'" in errors:
            failures.append((name, "named 'upload'"))
    assert not failures, failures
    assert not slow, slow
