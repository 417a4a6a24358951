"""``opstudio app``: launch the dashboard.

Logins follow Streamlit's convention: an ``[auth]`` section in ``.streamlit/secrets.toml`` of the folder
``opstudio app`` is started from, or in ``~/.streamlit/secrets.toml`` (both are passed to the server, which
runs from the dashboard's own folder). Without one the studio is single-user (every visitor acts as
``local`` with every role), so it listens on localhost only unless ``--address`` says otherwise.
"""

from __future__ import annotations

import argparse
import re
import signal
import subprocess
import sys
from pathlib import Path

from ..resources import dashboard_dir

__all__ = ["add_parser", "APP_PATH", "streamlit_command", "secrets_files", "has_auth", "LOCALHOST"]

APP_PATH = dashboard_dir() / "app.py"

#: the dashboard's settings (.streamlit/config.toml only applies when started from the checkout's folder)
SERVER_FLAGS = [
    "--server.maxUploadSize",
    "200",
    "--browser.gatherUsageStats",
    "false",
    "--client.toolbarMode",
    "viewer",
    "--client.showErrorDetails",
    "none",
    "--server.disconnectedSessionTTL",
    "60",
]


#: Streamlit reads a folder named ``pages/`` beside the main script as a legacy multipage app until ``st.navigation``
#: has run once in the process (``PagesManager.uses_pages_directory``): a new server's first run would run a page
#: script on its own, without ``app.py`` (no sidebar, no housekeeping), and so would every AppTest run. The studio's
#: ``pages/`` belongs to ``st.navigation``, so the server starts with the legacy mode off.
_STREAMLIT_MAIN = (
    "import sys; from streamlit.runtime.pages_manager import PagesManager; "
    "PagesManager.uses_pages_directory = False; from streamlit.web.cli import main; sys.exit(main())"
)


def streamlit_command(app_path, *options: str) -> list[str]:
    """The command that serves the dashboard: ``streamlit run app_path *options`` with legacy page folders off.

    Parameters
    ----------
    app_path : str or os.PathLike
        The dashboard's ``app.py``.
    *options : str
        Streamlit options (``--server.port``, ``8501``, ...).

    Returns
    -------
    list of str
        The argument vector, for :mod:`subprocess`.
    """
    return [sys.executable, "-c", _STREAMLIT_MAIN, "run", str(app_path), *options]


#: where a single-user studio listens unless told otherwise
LOCALHOST = "127.0.0.1"


def secrets_files(cwd: Path | None = None) -> list[Path]:
    """Streamlit's secrets files for a server started here: ``~/.streamlit`` first, then the current folder's
    (the later one wins, as in Streamlit).

    Parameters
    ----------
    cwd : pathlib.Path, optional
        The folder ``opstudio app`` is started from (default: the current one).

    Returns
    -------
    list of pathlib.Path
    """
    return [Path.home() / ".streamlit" / "secrets.toml", (cwd or Path.cwd()) / ".streamlit" / "secrets.toml"]


def has_auth(files: list[Path]) -> bool:
    """Whether any of the secrets files holds an ``[auth]`` section (logins through an OpenID Connect provider).

    Parameters
    ----------
    files : list of pathlib.Path
        Secrets files; missing ones are skipped.

    Returns
    -------
    bool
    """
    for path in files:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        try:
            import tomllib

            if tomllib.loads(text).get("auth"):
                return True
        except ImportError:  # Python 3.10: the section header is enough to tell
            if re.search(r"^\s*\[\s*auth\s*[.\]]", text, re.MULTILINE):
                return True
        except ValueError:  # not TOML: Streamlit says so at start-up
            continue
    return False


def run(args) -> int:
    if not APP_PATH.exists():
        print(
            f"error: the dashboard (app.py) is missing from the installation ({APP_PATH}). Reinstall "
            "operating-point-studio (pip install operating-point-studio, or pip install -e . in a checkout).",
            file=sys.stderr,
        )
        return 2
    cmd = streamlit_command(APP_PATH, "--server.port", str(args.port), *SERVER_FLAGS)
    if args.headless:
        cmd += ["--server.headless", "true"]
    files = secrets_files()
    for path in files:
        cmd += ["--secrets.files", str(path)]
    address = args.address
    if has_auth(files):
        print(f"Logins required ([auth] in {' or '.join(str(f) for f in files if f.exists())}).", file=sys.stderr)
    elif address is None:
        address = LOCALHOST
        print(
            "Single-user mode (no [auth] section in Streamlit's secrets): listening on localhost only; "
            "--address 0.0.0.0 serves other machines (docs/team.md: Running for a team).",
            file=sys.stderr,
        )
    if address:
        cmd += ["--server.address", address]
    return serve(cmd, cwd=str(APP_PATH.parent))


def serve(cmd: list[str], cwd: str) -> int:
    """Run the Streamlit server as a child and pass SIGINT / SIGTERM on to it, so none outlives us."""
    child = subprocess.Popen(cmd, cwd=cwd)

    def forward(signum, _frame):
        if child.poll() is None:
            child.send_signal(signum)

    previous = {sig: signal.signal(sig, forward) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        while True:
            try:
                return child.wait()
            except KeyboardInterrupt:  # forwarded already; wait for the child to finish
                continue
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if child.poll() is None:
            child.kill()


def add_parser(sub: argparse._SubParsersAction, name: str, help: str) -> None:
    """Add the command ``name`` to ``sub`` with its one-line ``help`` (from :data:`engine.cli.COMMANDS`)."""
    a = sub.add_parser(name, help=help)
    a.add_argument("--port", type=int, default=8501, help="port the dashboard listens on")
    a.add_argument("--headless", action="store_true", help="do not open a browser")
    a.add_argument(
        "--address",
        help="address to listen on (default: 127.0.0.1 without logins, every interface with an [auth] section "
        "in .streamlit/secrets.toml here or in ~/.streamlit)",
    )
    a.set_defaults(func=run)
