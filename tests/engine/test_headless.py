"""The engine never needs Streamlit: every engine module imports with Streamlit blocked."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_engine_module_imports_without_streamlit():
    code = (
        "import sys, importlib, pkgutil; sys.modules['streamlit'] = None\n"
        "import engine\n"
        "names = [m.name for m in pkgutil.walk_packages(engine.__path__, 'engine.') if not m.name.endswith('__main__')]\n"
        "assert len(names) > 20, names\n"
        "for name in names: importlib.import_module(name)\n"
        "assert 'streamlit' not in [m for m in sys.modules if sys.modules[m] is not None]\n"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)


def test_no_streamlit_import_statement_in_engine():
    files = list((ROOT / "engine").rglob("*.py"))
    assert len(files) > 20
    for path in files:
        text = path.read_text()
        assert "import streamlit" not in text and "from streamlit" not in text, path
