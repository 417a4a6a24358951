"""One registry of commands (engine.cli.COMMANDS): the program's help, version and argument errors import no
command module and none of the heavy libraries; ``opstudio CMD`` imports only CMD's module."""

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

from engine.cli import COMMANDS, EXAMPLES, _parser

ROOT = Path(__file__).resolve().parents[3]
HEAVY = ("numpy", "pandas", "scipy", "sklearn", "plotly", "duckdb", "pyarrow", "numba", "lightgbm")
COMMAND_MODULES = {f"engine.cli.{command.module}" for command in COMMANDS.values()}


def _imports(*argv: str) -> tuple[int, set[str]]:
    """Exit status and modules imported by ``python -m engine.cli ARGV`` (run as ``-m`` does, in a fresh
    interpreter; ``-X importtime`` misses modules imported through importlib)."""
    code = (
        "import runpy, sys\n"
        f"sys.argv = ['opstudio', *{list(argv)!r}]\n"
        "try:\n    runpy.run_module('engine.cli', run_name='__main__', alter_sys=True)\n"
        "except SystemExit as exit_:\n    status = exit_.code\n"
        "print('MODULES', status, ' '.join(sys.modules))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    status, *modules = proc.stdout.rsplit("MODULES", 1)[1].split()
    assert "engine.cli" in modules, proc.stderr[-2000:]
    return int(status), set(modules)


def _heavy(modules: set[str]) -> set[str]:
    return {m for m in modules if m.split(".")[0] in HEAVY}


@pytest.mark.parametrize(
    "argv", [["--help"], [], ["--version"], ["nope"], ["app", "--help"]], ids=lambda a: " ".join(a) or "no command"
)
def test_program_help_version_and_argument_errors_import_no_command_and_no_heavy_library(argv):
    status, modules = _imports(*argv)
    assert status == (0 if argv and argv[-1] in ("--help", "--version") else 2)
    assert not _heavy(modules), sorted(_heavy(modules))
    assert modules & COMMAND_MODULES == ({"engine.cli.app"} if argv[:1] == ["app"] else set())


def test_a_command_imports_only_its_own_module():
    status, modules = _imports("sweep", "--help")
    assert status == 0
    assert modules & COMMAND_MODULES == {"engine.cli.pn"}
    assert "numpy" in modules  # the check sees what a command imports


def test_the_light_program_help_is_the_full_one():
    assert _parser([]).format_help() == _parser().format_help()
    assert "sweep" in _parser([]).format_help()


def test_each_command_comes_from_its_module_with_the_registry_help():
    parser = _parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert list(sub.choices) == list(COMMANDS)
    assert {a.dest: a.help for a in sub._choices_actions} == {name: c.help for name, c in COMMANDS.items()}
    for name, command in COMMANDS.items():
        child = sub.choices[name]
        funcs = (
            [child.get_default("func")]
            if child.get_default("func")
            else [
                grandchild.get_default("func")
                for a in child._actions
                if isinstance(a, argparse._SubParsersAction)
                for grandchild in a.choices.values()
            ]
        )
        assert funcs and all(f.__module__ == f"engine.cli.{command.module}" for f in funcs), name
        assert EXAMPLES[(name,)] == command.example


@pytest.mark.parametrize(
    "argv",
    [
        ["nosuch"],
        ["sweep", "--backend", "oracle"],
        ["monitor", "--period", "year"],
        ["audit", "plan", "--budget", "x"],
        ["qwyc", "fit", "--alpha"],
        ["batch", "--loss"],
        ["constrain", "--min-recall", "high"],
        ["paths", "--bins", "a"],
    ],
)
def test_every_bad_argument_is_one_line_and_exit_2(argv, capsys):
    """argparse's own errors answer like the engine's: one line naming the command, no usage block."""
    from engine.cli import main

    with pytest.raises(SystemExit) as info:
        main(argv)
    err = capsys.readouterr().err
    assert info.value.code == 2
    assert err.count("\n") == 1 and err.startswith("error: opstudio") and "--help)" in err
