"""The engine never needs Streamlit."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_engine_imports_without_streamlit():
    code = ("import sys; sys.modules['streamlit'] = None\n"
            "import engine, engine.data, engine.pn, engine.grid, engine.paths, engine.samples, engine.figures, engine.cli\n"
            "import engine.setloss, engine.batch_baselines, engine.ensembles, engine.qwyc, engine.constraints, engine.report\n"
            "assert 'streamlit' not in [m for m in sys.modules if sys.modules[m] is not None]\n")
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)


def test_no_streamlit_import_statement_in_engine():
    for path in (ROOT / "engine").glob("*.py"):
        text = path.read_text()
        assert "import streamlit" not in text and "from streamlit" not in text, path
