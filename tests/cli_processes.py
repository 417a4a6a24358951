"""``opstudio`` run as a user runs it, in a process of its own, without paying the imports on every case.

The hostile corpora (tests/fuzz) run a hundred-odd command lines each. ``python -m engine.cli`` spends about 1.5 s of
CPU importing numpy, pandas, DuckDB and the engine before it reads its arguments, so most of those tests' time was
imports. :func:`run_cli` hands each case to a fork server: a Python process that imported ``engine.cli`` and every
command's module once, and forks one child per case. The child is a process of its own, with its own working folder,
environment, stdin (``/dev/null``), stdout and stderr (file descriptors, so nothing written below Python is missed);
it runs ``engine.cli.main`` as ``python -m engine.cli`` does and exits with its status. An uncaught exception is
printed to its stderr as the interpreter prints it, exit status 1.

What this does not cover, and the other CLI tests do with real ``python -m engine.cli`` processes
(tests/engine/cli): the imports themselves and the console script.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import queue
import select
import signal
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: the fork server: one JSON request per line on stdin; per request it forks, writes the child's pid, waits for it
#: and writes its exit status (the child never returns into the loop: os._exit)
SERVER = r"""
import importlib, json, os, sys, traceback
from engine.cli import COMMANDS
for module in ["common", *sorted({c.module for c in COMMANDS.values()})]:
    importlib.import_module("engine.cli." + module)
from engine.cli import main
reply = os.fdopen(os.dup(1), "w")
for line in sys.stdin:
    argv, cwd, env, out, err = json.loads(line)
    pid = os.fork()
    if pid == 0:
        os.chdir(cwd)
        os.environ.clear()
        os.environ.update(env)
        for fd, path, flags in ((0, os.devnull, os.O_RDONLY), (1, out, os.O_WRONLY), (2, err, os.O_WRONLY)):
            os.dup2(os.open(path, flags), fd)
        sys.argv = ["opstudio", *argv]
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            if exc.code is not None and not isinstance(exc.code, int):
                print(exc.code, file=sys.stderr)
        except BaseException:
            traceback.print_exc()
            code = 1
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    reply.write(f"{pid}\n")
    reply.flush()
    reply.write(f"{os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])}\n")
    reply.flush()
"""

_IDLE: queue.SimpleQueue[subprocess.Popen] = queue.SimpleQueue()
_ALL: list[subprocess.Popen] = []


def _server() -> subprocess.Popen:
    """An idle fork server, or a new one (one per case running at once)."""
    try:
        return _IDLE.get_nowait()
    except queue.Empty:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
        # unbuffered: a line read is never more than that line, so select() sees the next one
        server = subprocess.Popen(
            [sys.executable, "-c", SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0, env=env
        )
        _ALL.append(server)
        return server


@atexit.register
def _stop_servers() -> None:
    for server in _ALL:
        server.kill()


def _line(server: subprocess.Popen, timeout: float) -> str | None:
    """The server's next line, or None after ``timeout`` seconds."""
    ready, _, _ = select.select([server.stdout], [], [], timeout)
    return server.stdout.readline().decode() if ready else None


def run_cli(
    argv: Sequence[str], *, cwd: str | Path, env: Mapping[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess:
    """Run ``opstudio ARGV`` in its own process, as :func:`subprocess.run` with ``capture_output`` and ``text``.

    Parameters
    ----------
    argv : sequence of str
        The arguments after ``opstudio``.
    cwd : str or Path
        The process's working folder.
    env : mapping, optional
        Its whole environment (``os.environ`` when None).
    timeout : float
        Seconds before the process is killed and :class:`subprocess.TimeoutExpired` raised.

    Returns
    -------
    subprocess.CompletedProcess
        ``returncode``, ``stdout`` and ``stderr`` (text) of the process.
    """
    argv = [str(a) for a in argv]
    server = _server()
    with tempfile.TemporaryDirectory(prefix="opstudio-cli-") as folder:
        out, err = Path(folder, "stdout"), Path(folder, "stderr")
        out.touch()
        err.touch()
        request = [argv, str(cwd), dict(os.environ if env is None else env), str(out), str(err)]
        server.stdin.write((json.dumps(request) + "\n").encode())
        pid = _line(server, 60)
        if not pid:
            raise RuntimeError(f"the fork server stopped (exit status {server.poll()}); its stderr is the test's")
        status = _line(server, timeout)
        if status is None:
            with contextlib.suppress(ProcessLookupError):  # it ended just now
                os.kill(int(pid), signal.SIGKILL)
            _line(server, 60)
            _IDLE.put(server)
            raise subprocess.TimeoutExpired(["opstudio", *argv], timeout)
        _IDLE.put(server)
        return subprocess.CompletedProcess(
            ["opstudio", *argv], int(status), out.read_text(errors="replace"), err.read_text(errors="replace")
        )
