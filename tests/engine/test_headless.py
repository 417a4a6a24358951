"""The engine never needs Streamlit: every engine module imports with Streamlit blocked."""

import ast
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
    # statements, not text: engine.cli.app hands Streamlit's own entry point to a child process as a string
    files = list((ROOT / "engine").rglob("*.py"))
    assert len(files) > 20
    for path in files:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                continue
            assert not any(n == "streamlit" or n.startswith("streamlit.") for n in names), (path, node.lineno)
