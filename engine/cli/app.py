"""``opstudio app``: launch the dashboard."""

from __future__ import annotations

import argparse
import signal
import subprocess
import sys

from ..resources import dashboard_dir

__all__ = ["add_parser", "APP_PATH"]

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


def run(args) -> int:
    if not APP_PATH.exists():
        print(
            f"error: the dashboard (app.py) is missing from the installation ({APP_PATH}). Reinstall "
            "operating-point-studio (pip install operating-point-studio, or pip install -e . in a checkout).",
            file=sys.stderr,
        )
        return 2
    cmd = [sys.executable, "-m", "streamlit", "run", str(APP_PATH), "--server.port", str(args.port), *SERVER_FLAGS]
    if args.headless:
        cmd += ["--server.headless", "true"]
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
    a.set_defaults(func=run)
