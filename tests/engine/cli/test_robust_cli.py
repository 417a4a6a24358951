"""The command line under hostile conditions: closed pipes, signals, odd files."""

import os
import signal
import subprocess
import sys
import time
import urllib.request

import pytest

from engine.io import sample_path
from tests.e2e.conftest import free_port, wait_healthy


@pytest.mark.slow
def test_a_closed_pipe_ends_quietly():
    cmd = f"{sys.executable} -m engine.cli sweep {sample_path('synthetic')} --json | head -c 20"
    r = subprocess.run(["bash", "-c", f"set -o pipefail; {cmd}"], capture_output=True, text=True, timeout=120)
    assert "Traceback" not in r.stderr and "BrokenPipe" not in r.stderr
    assert r.stdout.startswith("{")


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_app_forwards_signals_and_leaves_no_server_behind(sig):
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "engine.cli", "app", "--headless", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        if not wait_healthy(f"http://127.0.0.1:{port}", proc):
            pytest.fail("the app did not start")
        proc.send_signal(sig)
        proc.wait(timeout=30)
        time.sleep(1)
        with pytest.raises(OSError):
            urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=1)
        # no process of the session (the launcher's children) survives
        left = subprocess.run(["pgrep", "-s", str(proc.pid)], capture_output=True, text=True).stdout.split()
        assert left == []
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
