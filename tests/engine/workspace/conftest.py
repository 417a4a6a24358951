"""The workspace suite runs on SQLite and on a real PostgreSQL server started here (Debian's ``postgresql``).

The server is initialised in a temporary folder and started once per session on a free port
(as the ``postgres`` user when the tests run as root: PostgreSQL refuses to run as root); each
test gets a fresh database on it. Without PostgreSQL's programs the PostgreSQL half is skipped,
except under CI (``CI`` set), where it fails: ``.ci/run`` installs them.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from itertools import count
from pathlib import Path

import pytest

from engine.workspace import Settings, Workspace

BACKENDS = ("sqlite", "postgresql")
_DATABASES = count(1)


def _pg_bin() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]), reverse=True)
    if found:
        return Path(found[0]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def _as_postgres(command: list[str]) -> list[str]:
    """``command`` run as the ``postgres`` user when this process is root (PostgreSQL refuses root)."""
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PostgresServer:
    """A PostgreSQL server in a temporary folder, trusting local connections, on a free port."""

    def __init__(self, bin_dir: Path):
        self.bin = bin_dir
        self.root = Path(tempfile.mkdtemp(prefix="opstudio-pg-"))
        self.port = _free_port()
        if os.geteuid() == 0:
            shutil.chown(self.root, "postgres", "postgres")
        data = self.root / "data"
        subprocess.run(
            _as_postgres(
                [str(bin_dir / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"]
            ),
            check=True,
            capture_output=True,
            timeout=180,
        )
        options = f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=60"
        subprocess.run(
            _as_postgres(
                [
                    str(bin_dir / "pg_ctl"),
                    "-D",
                    str(data),
                    "-o",
                    options,
                    "-l",
                    str(self.root / "log"),
                    "-w",
                    "-t",
                    "120",
                    "start",
                ]
            ),
            check=True,
            capture_output=True,
            timeout=180,
        )

    def url(self, database: str = "postgres", password: str | None = None) -> str:
        secret = f":{password}" if password else ""
        return f"postgresql+psycopg://postgres{secret}@127.0.0.1:{self.port}/{database}"

    def create_database(self) -> str:
        import psycopg

        name = f"workspace_{os.getpid()}_{next(_DATABASES)}"
        with psycopg.connect(f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres", autocommit=True) as c:
            c.execute(f"CREATE DATABASE {name}")
        return name

    def stop(self) -> None:
        subprocess.run(
            _as_postgres([str(self.bin / "pg_ctl"), "-D", str(self.root / "data"), "-m", "fast", "-w", "stop"]),
            capture_output=True,
            timeout=120,
        )
        shutil.rmtree(self.root, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres_server():
    bin_dir = _pg_bin()
    if bin_dir is None:
        if os.environ.get("CI"):
            pytest.fail("PostgreSQL's programs are missing (.ci/run installs Debian's postgresql)")
        pytest.skip("PostgreSQL is not installed")
    server = PostgresServer(bin_dir)
    yield server
    server.stop()


@pytest.fixture(params=BACKENDS)
def backend(request) -> str:
    return request.param


@pytest.fixture
def database_url(backend, tmp_path, request) -> str:
    """A fresh, empty database on the backend: a SQLite file, or a new database on the test server."""
    if backend == "sqlite":
        return f"sqlite:///{tmp_path / 'workspace.db'}"
    server = request.getfixturevalue("postgres_server")
    return server.url(server.create_database())


@pytest.fixture
def settings(database_url, tmp_path) -> Settings:
    return Settings(database_url, str(tmp_path / "datasets"), 10 * 2**20, "https://studio.example.org")


@pytest.fixture
def workspace(settings):
    with Workspace(settings) as ws:
        yield ws


def wait_for(predicate, timeout: float = 60.0, step: float = 0.05) -> bool:
    """Poll ``predicate`` until it is true or ``timeout`` seconds pass."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(step)
    return predicate()
