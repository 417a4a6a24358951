"""The engine's input errors: one base class, messages that name the column, the rows and the fix."""

from __future__ import annotations

import numpy as np

__all__ = [
    "InputError",
    "RatedDataError",
    "BatchDataError",
    "InfeasibleConstraintsError",
    "describe_rows",
    "MAX_LISTED",
    "ROW_NOTE",
    "ROW_PROBLEMS",
    "row_problem",
    "counted_rows",
    "listed_rows",
    "shown_values",
]


class InputError(ValueError):
    """Invalid input (a file, a column, an argument). The message names what is wrong, where, and the fix.

    Every loader and validator of the engine raises this class or a subclass, so
    the dashboard and the command line catch one type and show its message.
    """


class RatedDataError(InputError):
    """Invalid rated data or aggregated counts."""


class BatchDataError(InputError):
    """Invalid probability batches."""


class InfeasibleConstraintsError(InputError):
    """The user's constraints admit no feasible starting point (the message says which and how to relax them)."""


#: how many offending rows a message lists before "and N more"
MAX_LISTED = 5
ROW_NOTE = "(row 1 = first data row)"


def describe_rows(mask_or_index: np.ndarray) -> str:
    """'rows 3, 8, 9 and 12 more' for a boolean mask or 0-based index array.

    Parameters
    ----------
    mask_or_index : numpy.ndarray
        Boolean mask over the rows, or 0-based row indices.

    Returns
    -------
    str
        The first :data:`MAX_LISTED` rows, 1-based, how many more there are, and
        :data:`ROW_NOTE`.
    """
    idx = np.flatnonzero(mask_or_index) if mask_or_index.dtype == bool else np.asarray(mask_or_index)
    return listed_rows(idx[:MAX_LISTED], len(idx))


def listed_rows(first, total: int, note: str = ROW_NOTE) -> str:
    """'rows 3, 8, 9 and 12 more (row 1 = first data row)' from the first rows and how many there are.

    The one wording of rows in messages, whoever found them (memory lists them from a mask, the
    backends that count where the rows lie fetch the first few).

    Parameters
    ----------
    first : sequence of int or of str
        The first rows, 0-based (at most :data:`MAX_LISTED` are shown), or already worded
        (``"3 of 'a.csv'"``, 1-based).
    total : int
        How many rows have the problem.
    note : str, optional
        What the numbers count from (default :data:`ROW_NOTE`).

    Returns
    -------
    str
    """
    shown = ", ".join(str(i) if isinstance(i, str) else str(int(i) + 1) for i in list(first)[:MAX_LISTED])
    more = f" and {total - MAX_LISTED:,} more" if total > MAX_LISTED else ""
    word = "row" if total == 1 else "rows"
    return f"{word} {shown}{more} {note}"


#: most characters of one value quoted in a message
MAX_SHOWN_CHARS = 60


def shown_values(values, numeric: bool = False) -> str:
    """The first :data:`MAX_LISTED` distinct values, in order, as a message quotes them.

    Parameters
    ----------
    values : iterable
        Offending values in row order (repeats allowed).
    numeric : bool, optional
        The column holds numbers: values are written as numbers (``2``, ``0.5``), else quoted text
        (``'maybe'``, cut after :data:`MAX_SHOWN_CHARS` characters).

    Returns
    -------
    str
    """
    shown: list[str] = []
    for v in values:
        text = format(float(v), "g") if numeric else repr(str(v)[:MAX_SHOWN_CHARS])
        if text not in shown:
            shown.append(text)
        if len(shown) == MAX_LISTED:
            break
    return ", ".join(shown)


#: One message set for bad rated rows, whoever finds them (memory, DuckDB, Spark): per problem, the
#: words for the problem and the fix. Only where they are differs: memory lists the rows (and values),
#: the backends that count where the rows lie say how many (:func:`counted_rows`).
ROW_PROBLEMS: dict[str, tuple[str, str]] = {
    "label": (
        "unknown label values",
        "Use 1/0 (or, in any case, true/false, yes/no, y/n, tp/fp, pos/neg, "
        "positive/negative); leave the cell empty for unrated rows.",
    ),
    "not_number": ("non-numeric values", "Make every value a number (dot as decimal separator) or remove those rows."),
    "infinite": ("infinite values", "Replace them with finite scores or remove those rows."),
    "missing_score": (
        "missing scores on rated rows",
        "Every rated document needs a score from every chosen "
        "classifier: fill them in, remove those rows, or leave their label empty to mark them unrated.",
    ),
    "weight": (
        "negative, missing or non-finite weights",
        "Weights must be finite numbers >= 0 (the number of documents a rating stands for).",
    ),
    "no_rated": ("has no rated rows: every label is empty", "Fill in the raters' verdicts (1/0, yes/no, tp/fp ...)."),
    "zero_weight": ("all rated rows have weight 0", "Give the rated documents positive weights."),
    "boolean": (
        "true/false values, not numbers",
        "Choose a column of numbers for this role (a true/false column can be the label, not a score or a weight).",
    ),
}


def row_problem(kind: str, column: str | None, located: str = "", *, role: str = "", where: str = "") -> str:
    """The message of a problem of :data:`ROW_PROBLEMS`: column, where, the problem, which rows, the fix.

    Parameters
    ----------
    kind : str
        A key of :data:`ROW_PROBLEMS`.
    column : str
        The column at fault.
    located : str, optional
        Which rows (``"'maybe' at row 2 (row 1 = first data row)"``, or :func:`counted_rows`).
    role : str, optional
        ``"score"``, ``"weight"`` ...: the message starts "Score column ..." (default "Column ...").
    where : str, optional
        The rows' location (``"'data/*.parquet'"``), for rows that are not in a file the user just read.

    Returns
    -------
    str
        ``"<Role> column '<column>'[ of <where>]: <problem> <located>. <fix>"``.
    """
    phrase, fix = ROW_PROBLEMS[kind]
    subject = f"{role.capitalize() + ' c' if role else 'C'}olumn '{column}'" + (f" of {where}" if where else "")
    if kind == "no_rated":
        return f"{subject} {phrase}. {fix}"
    return f"{subject}: {phrase}{' ' + located if located else ''}. {fix}"


def counted_rows(n: int) -> str:
    """``"(3 rows)"``: how a backend that counts where the rows lie locates a problem.

    Parameters
    ----------
    n : int
        Rows with the problem.

    Returns
    -------
    str
        The count in parentheses.
    """
    return f"({n:,} row{'' if n == 1 else 's'})"
