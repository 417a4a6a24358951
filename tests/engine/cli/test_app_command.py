"""``opstudio app``: single-user (no ``[auth]`` in Streamlit's secrets) listens on localhost unless told otherwise;
with logins it listens where Streamlit does; the secrets of the folder it starts in reach the server."""

from __future__ import annotations

import argparse

import pytest

from engine.cli import app


@pytest.fixture
def launched(tmp_path, monkeypatch):
    """Run ``opstudio app`` with HOME and the current folder in ``tmp_path``; the server command it would start."""
    home, here = tmp_path / "home", tmp_path / "here"
    home.mkdir()
    here.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(here)
    started = []
    monkeypatch.setattr(app, "serve", lambda cmd, cwd: started.append(cmd) or 0)

    def run(address: str | None = None, secrets: str | None = None, where: str = "here") -> list[str]:
        if secrets is not None:
            folder = (here if where == "here" else home) / ".streamlit"
            folder.mkdir(exist_ok=True)
            (folder / "secrets.toml").write_text(secrets)
        assert app.run(argparse.Namespace(port=8600, headless=True, address=address)) == 0
        return started[-1]

    return run, home, here


def option(cmd: list[str], name: str) -> list[str]:
    return [cmd[i + 1] for i, part in enumerate(cmd) if part == name]


AUTH = '[auth]\nredirect_uri = "http://localhost:8600/oauth2callback"\ncookie_secret = "x"\nclient_id = "c"\n'


def test_without_auth_it_listens_on_localhost_only(launched, capsys):
    run, home, here = launched
    cmd = run()
    assert option(cmd, "--server.address") == ["127.0.0.1"]
    assert "Single-user mode" in capsys.readouterr().err
    assert option(cmd, "--secrets.files") == [
        str(home / ".streamlit" / "secrets.toml"),
        str(here / ".streamlit" / "secrets.toml"),
    ]


def test_an_address_given_is_kept(launched):
    run, _, _ = launched
    assert option(run(address="0.0.0.0"), "--server.address") == ["0.0.0.0"]


@pytest.mark.parametrize("where", ["here", "home"])
def test_with_auth_it_listens_where_streamlit_does(launched, capsys, where):
    run, _, _ = launched
    cmd = run(secrets=AUTH, where=where)
    assert option(cmd, "--server.address") == []
    assert "Logins required" in capsys.readouterr().err


@pytest.mark.parametrize(
    "text, expected",
    [
        (AUTH, True),
        ('[auth.google]\nclient_id = "c"\n', True),
        ("[other]\nauth = 1\n", False),
        ("[auth]\n", False),  # an empty section: Streamlit has nothing to log in with
        ("not = [toml", False),
        ("", False),
    ],
)
def test_has_auth_reads_the_section(tmp_path, text, expected):
    path = tmp_path / "secrets.toml"
    path.write_text(text)
    assert app.has_auth([tmp_path / "missing.toml", path]) is expected
