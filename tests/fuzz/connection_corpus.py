"""Hostile connections, built in a temporary folder: what a user of the Data page can point DuckDB at.

Each case is (path, table) inside the allowed folder ``lake`` (or a path typed to reach out of it);
everything outside holds the marker :data:`SECRET`, which no result and no message may show.
Categories: links out of the root (plain, hidden, dangling, in a folder, replaced after connecting),
``..`` paths, globs over links and loops, databases whose views, macros or write-ahead log read
outside files, SQL in file and table names, files DuckDB's sniffer misreads.
"""

from __future__ import annotations

import os
from pathlib import Path

import duckdb
import pandas as pd

#: what the files outside the root hold; never shown
SECRET = "0.31415926"
#: the folder outside the root, never named in a message
OUTSIDE = "private-area"


def _rows(n: int = 20) -> pd.DataFrame:
    return pd.DataFrame({"score": [i / n for i in range(n)], "label": [i % 2 for i in range(n)]})


def _database(path: Path, outside: Path) -> None:
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE ratings AS SELECT range / 20.0 AS score, range % 2 AS label FROM range(20)")
    con.execute("CREATE VIEW passwd AS SELECT * FROM read_csv('/etc/passwd')")
    con.execute(f"CREATE VIEW secret AS SELECT * FROM read_csv('{outside / 'secret.csv'}')")
    con.execute(f"CREATE VIEW secret_parquet AS SELECT * FROM read_parquet('{outside / 'secret.parquet'}')")
    con.execute(f"CREATE VIEW secret_glob AS SELECT * FROM read_csv('{outside}/*.csv')")
    con.execute(
        f"CREATE VIEW via_text AS SELECT content AS score, 1 AS label FROM read_text('{outside / 'secret.csv'}')"
    )
    con.execute(f"CREATE MACRO peek() AS TABLE SELECT * FROM read_csv('{outside / 'secret.csv'}')")
    con.execute("CREATE VIEW through_macro AS SELECT * FROM peek()")
    con.execute(f"CREATE MACRO path_of() AS '{outside / 'secret.csv'}'")
    con.execute("CREATE VIEW through_scalar_macro AS SELECT * FROM read_csv(path_of())")
    con.close()


def build(tmp: Path) -> tuple[Path, list[tuple[str, str | None, str]]]:
    """Make the corpus under ``tmp``; returns the root and the cases (path, table, name)."""
    lake, outside = tmp / "lake", tmp / OUTSIDE
    lake.mkdir()
    outside.mkdir()
    (outside / "secret.csv").write_text(f"score,label\n{SECRET},1\n{SECRET},0\n")
    pd.DataFrame({"score": [float(SECRET)] * 4, "label": [1, 0, 1, 0]}).to_parquet(outside / "secret.parquet")
    (outside / "sub").mkdir()
    (outside / "sub" / "more.csv").write_text(f"score,label\n{SECRET},1\n")
    _rows().to_parquet(lake / "good.parquet")
    _rows().to_csv(lake / "good.csv", index=False)
    os.symlink(outside / "secret.csv", lake / "link.csv")
    os.symlink(outside / "secret.csv", lake / ".hidden.csv")
    os.symlink(outside / "nothing.csv", lake / "dangling.csv")
    os.symlink(outside, lake / "folder_link")
    os.symlink(outside / "secret.parquet", lake / "link.parquet")
    (lake / "loop").mkdir()
    os.symlink(lake, lake / "loop" / "back")
    _database(lake / "views.duckdb", outside)
    _database(lake / "wal.duckdb", outside)
    os.symlink(outside / "secret.csv", lake / "wal.duckdb.wal")
    os.symlink(lake / "views.duckdb", lake / "db_link.duckdb")
    os.symlink(outside / "secret.csv", lake / "secret_as.duckdb")
    sql_name = lake / "x']); SELECT * FROM read_csv(['secret.csv'); --.csv"  # a name cannot hold a slash
    _rows().to_csv(sql_name, index=False)
    (lake / "extra_field.csv").write_text(_rows(60).to_csv(index=False) + "0.5,1,extra\n")
    (lake / "short_row.csv").write_text("score,label\n0.1,1\n0.2\n0.3,0\n")
    cases = [
        (str(outside / "secret.csv"), None, "outside, existing"),
        (str(outside / "nothing.csv"), None, "outside, missing"),
        (str(lake / ".." / OUTSIDE / "secret.csv"), None, "dot-dot"),
        (str(lake / "link.csv"), None, "link out"),
        (str(lake / "dangling.csv"), None, "dangling link"),
        (str(lake / "folder_link" / "secret.csv"), None, "through a folder link"),
        (str(lake / "folder_link" / "*.csv"), None, "glob through a folder link"),
        (str(lake / "*.csv"), None, "glob over a link"),
        (str(lake / ".*.csv"), None, "hidden link asked for"),
        (str(lake / "**" / "*.csv"), None, "recursive glob over a loop"),
        (str(lake / "*" / "*.csv"), None, "one level into links"),
        (str(lake / ".." / "*" / "*.csv"), None, "glob above the root"),
        ("/etc/passwd", None, "system file"),
        ("/etc/*.csv", None, "system glob"),
        (str(lake / "link.parquet"), None, "parquet link"),
        (str(lake / "wal.duckdb"), "ratings", "write-ahead log linked out"),
        (str(lake / "secret_as.duckdb"), "ratings", "database name linked out"),
        (str(lake / "extra_field.csv"), None, "extra field in the last row"),
        (str(lake / "short_row.csv"), None, "short row"),
    ] + [
        (str(lake / "views.duckdb"), view, f"view {view}")
        for view in (
            "passwd",
            "secret",
            "secret_parquet",
            "secret_glob",
            "via_text",
            "through_macro",
            "through_scalar_macro",
        )
    ]
    return lake, cases
