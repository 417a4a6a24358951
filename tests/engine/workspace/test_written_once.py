"""No code path of engine.workspace updates or deletes an event, a record, a view or a decision's content.

Read from the source (the migrations' trigger definitions aside): no SQL text updating, deleting or
truncating those tables, no SQLAlchemy ``update()`` / ``delete()`` constructs, ``session.delete`` only
where grants are revoked, and attribute assignments on rows only to a decision's ``status`` (a
transition) and a dataset's ``private`` flag. The checker is tested on offending snippets too.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[3] / "engine" / "workspace"
TABLES = r"(events|records|views|view_datasets|decision_datasets|decisions)"
SQL = re.compile(rf"\b(UPDATE|DELETE\s+FROM|TRUNCATE)\s+\"?{TABLES}\b", re.I)
#: (function, attribute) pairs allowed to assign to a row's attribute
ALLOWED_ASSIGNMENTS = {
    ("transition", "status"),
    ("set_dataset_private", "private"),
    ("_connect", "isolation_level"),  # the SQLite driver's connection, not a row
}
#: receivers whose .update() is not a database update (a hash)
HASHES = {"digest"}


def _own_nodes(func: ast.AST):
    """The nodes of a function's body, those of functions nested in it aside (they are checked on their own)."""
    stack = list(ast.iter_child_nodes(func))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(node))


def offences(source: str, where: str) -> list[str]:
    tree = ast.parse(source)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and SQL.search(node.value):
            found.append(f"{where}:{node.lineno}: SQL changing a written-once table: {node.value[:60]!r}")
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("sqlalchemy"):
            bad = [a.name for a in node.names if a.name in ("update", "delete")]
            if bad:
                found.append(f"{where}:{node.lineno}: imports sqlalchemy {bad}")
    for func in [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]:
        for node in _own_nodes(func):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                attr, owner = node.func.attr, node.func.value
                if attr == "delete" and func.name != "revoke":
                    found.append(f"{where}:{node.lineno}: .delete() in {func.name}")
                if attr in ("merge", "bulk_update_mappings", "bulk_save_objects"):
                    found.append(f"{where}:{node.lineno}: .{attr}() in {func.name}")
                if attr == "update" and not (isinstance(owner, ast.Name) and owner.id in HASHES):
                    found.append(f"{where}:{node.lineno}: .update() in {func.name}")
            targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
            for target in targets if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) else []:
                if (
                    isinstance(target, ast.Attribute)
                    and not (isinstance(target.value, ast.Name) and target.value.id == "self")
                    and (func.name, target.attr) not in ALLOWED_ASSIGNMENTS
                ):
                    found.append(f"{where}:{node.lineno}: assigns .{target.attr} in {func.name}")
    return found


def test_no_code_path_updates_or_deletes_what_is_written_once():
    sources = [p for p in sorted(PACKAGE.rglob("*.py")) if "migrations" not in p.parts]
    assert len(sources) >= 8
    problems = [o for p in sources for o in offences(p.read_text(), p.name)]
    assert problems == []


def test_the_revoke_delete_is_of_grants_only():
    source = (PACKAGE / "_workspace.py").read_text()
    revoke = source[source.index("    def revoke(") : source.index("    def users(")]
    assert "select(GrantRow)" in revoke and revoke.count(".delete(") == 1


@pytest.mark.parametrize(
    "snippet",
    [
        "def f(s):\n    s.execute(text('UPDATE events SET note = 1'))\n",
        "def f(s):\n    s.execute(text('delete from \"records\"'))\n",
        "from sqlalchemy import update\n",
        "def f(s, row):\n    s.delete(row)\n",
        "def f(s, q):\n    q.update({'note': 'x'})\n",
        "def f(s, row):\n    row.note = 'x'\n",
        "def transition(s, row):\n    row.hash = 'x'\n",
        "def f(s, row):\n    s.merge(row)\n",
    ],
)
def test_the_checker_finds_each_kind_of_offence(snippet):
    assert offences(snippet, "x.py")
