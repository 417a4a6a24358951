"""Decision record at meeting sizes (issue 21): export and import of 10 .. 100 items; the 12-item record of issue 36.

    python benchmarks/bench_record.py [max_items] [--no-pdf]
    PYTHONPATH=. python benchmarks/bench_record.py --meeting [--repeat 3]

``--meeting`` builds the record issue 36 printed (one item from every page on the shipped samples, three on
files of one's own made from shared/data, as tests/app/test_record_page_images.py does), then times its HTML
export and its PDF export (Chromium's print and the attached CSV files) ``--repeat`` times each, and counts
its pages, mostly blank pages, broken words and machine names. Issue 36's budget at load <= 2: PDF <= 5 s,
HTML <= 2 s, <= 16 pages. The load average is printed: on a busy machine the times are not the final ones.

Each size runs in its own process (peak RSS is that process's). The items are shaped like the
pages' own: an operating point (PN curve of 5,000 points, marginal-precision curve, a 20-row sweep), a
joint-thresholds item (a 60 x 60 heatmap, a wide 12-column comparison), a batch decision (500 decided
rows) and an early-exit policy (histogram, 2-row table), in turn. Timed: JSON export, JSON import
(parsed and schema-checked), HTML export, and the PDF printed by headless Chromium (when installed).
Issue 21's budget: 100 items exported in at most 5 s (HTML, PDF, JSON).
"""

from __future__ import annotations

import multiprocessing as mp
import os
import platform
import resource
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import plotly.graph_objects as go

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.record import (  # noqa: E402
    chromium_path,
    new_item,
    read_record_json,
    record_html,
    record_json,
    record_pdf,
)


def meeting_items(n: int) -> list:
    rng = np.random.default_rng(0)
    items = []
    for i in range(n):
        kind = i % 4
        if kind == 0:
            x = np.sort(rng.random(5000)).cumsum()
            items.append(
                new_item(
                    "operating point",
                    f"Operating point {i}",
                    "Flag scores ≥ 0.62: 856 true positives.",
                    tables=[
                        (
                            "Sweep of target marginal precisions",
                            pd.DataFrame(
                                rng.random((20, 7)),
                                columns=[
                                    "target_marginal_precision",
                                    "threshold",
                                    "tp",
                                    "fp",
                                    "precision",
                                    "marginal_precision_above",
                                    "fp_per_extra_tp",
                                ],
                            ),
                        )
                    ],
                    figures=[
                        ("PN curve", go.Figure(go.Scatter(x=x, y=x**0.5, mode="lines"))),
                        ("Marginal precision", go.Figure(go.Scatter(x=x[::10], y=rng.random(500)))),
                    ],
                    data_fingerprint="a" * 64,
                    settings={"classifier": "score_image", "target": 0.3, "bootstrap_replicates": 200},
                    link="http://localhost:8501/operating-point?target=0.3",
                )
            )
        elif kind == 1:
            items.append(
                new_item(
                    "joint thresholds",
                    f"Joint thresholds {i}",
                    "The graph path flags score_image ≥ 0.4.",
                    tables=[
                        (
                            "Graph and analytic paths compared",
                            pd.DataFrame(
                                rng.random((6, 12)), columns=[f"objective_gap_to_column_{j}" for j in range(12)]
                            ),
                        )
                    ],
                    figures=[("Threshold space", go.Figure(go.Heatmap(z=rng.random((60, 60)))))],
                    data_fingerprint="b" * 64,
                    settings={"classifiers": ["score_image", "score_text"], "rule": "or"},
                    link="http://localhost:8501/ensemble-paths",
                )
            )
        elif kind == 2:
            decided = pd.DataFrame(
                {
                    "item_id": [f"A-{k}" for k in range(500)],
                    "probability": rng.random(500),
                    "flag": rng.integers(0, 2, 500),
                    "label": rng.integers(0, 2, 500),
                }
            )
            items.append(
                new_item(
                    "batch decision",
                    f"Batch {i}",
                    "Flag the 37 most probable items.",
                    tables=[("Decided items (most probable first)", decided)],
                    figures=[("Expected loss", go.Figure(go.Scatter(y=rng.random(500))))],
                    data_fingerprint="c" * 64,
                    settings={"loss": "F2", "batch": "mon", "beta": 2.0},
                    link="http://localhost:8501/batch-decisions",
                )
            )
        else:
            items.append(
                new_item(
                    "early-exit policy",
                    f"Early exit {i}",
                    "Evaluate 41.2 of 500 models per row on average.",
                    tables=[("Policy", pd.DataFrame(rng.random((2, 8))))],
                    figures=[("Models evaluated per row", go.Figure(go.Histogram(x=rng.integers(1, 500, 5000))))],
                    data_fingerprint="d" * 64,
                    settings={"alpha": 0.006, "neg_only": False, "budget": "greedy"},
                    link="http://localhost:8501/early-exit",
                )
            )
    return items


def cpu() -> float:
    """CPU seconds of this process and its finished children (Chromium): a measure the machine's load does not
    inflate the way it inflates wall-clock time on a shared machine."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def run(n: int, pdf: bool, out) -> None:
    items = meeting_items(n)
    times = {}
    t = time.perf_counter()
    text = record_json(items)
    times["json export"] = time.perf_counter() - t
    t = time.perf_counter()
    back = read_record_json(text)
    times["json import"] = time.perf_counter() - t
    t = time.perf_counter()
    page = record_html(back)
    times["html export"] = time.perf_counter() - t
    if pdf:
        t = time.perf_counter()
        before = cpu()
        record_pdf(back, timeout=600)
        times["pdf export"] = time.perf_counter() - t
        times["pdf cpu"] = cpu() - before
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    out.send((len(text) / 2**20, len(page) / 2**20, times, rss))


def meeting(repeat: int) -> None:
    """The 12-item record of issue 36: export times, pages and what the page-image checks find."""
    from tests.app import printed_pages as pp
    from tests.app.record_of_every_page import record_of_every_page
    from tests.app.test_record_page_images import chapter_starts, users_names, vocabulary_of

    t = time.perf_counter()
    items = record_of_every_page()
    print(f"record of {len(items)} items built from the pages in {time.perf_counter() - t:.1f} s")
    html_times, static_times, pdf_times, pdf_cpu = [], [], [], []
    for _ in range(repeat):
        t = time.perf_counter()
        record_html(items)
        html_times.append(time.perf_counter() - t)
        t = time.perf_counter()
        page = record_html(items, static=True)
        static_times.append(time.perf_counter() - t)
        t, before = time.perf_counter(), cpu()
        pdf = record_pdf(items)
        pdf_times.append(time.perf_counter() - t)
        pdf_cpu.append(cpu() - before)
    pages = pp.read_pages(pdf)
    found = {
        "mostly blank pages": pp.mostly_blank(pages, chapter_starts(pages)),
        "broken words": pp.broken(pages, vocabulary_of(items, page)),
        "machine names": pp.machine_names(pages, users_names()),
        "raw values": pp.raw_values(pages),
        "text outside the printable area": pp.outside(pages),
        "overlapping words": pp.overlapping(pages),
    }
    print(f"load {os.getloadavg()[0]:.2f} (1 min), {os.getloadavg()[1]:.2f} (5 min)")
    print("| what | runs (s) | best s |")
    print("|---|---|---:|")
    for name, times in (
        ("HTML export", html_times),
        ("HTML for print", static_times),
        ("PDF export", pdf_times),
        ("PDF export, CPU s (this process and Chromium)", pdf_cpu),
    ):
        print(f"| {name} | {', '.join(f'{x:.2f}' for x in times)} | {min(times):.2f} |")
    print(f"pages {len(pages)}, PDF {len(pdf) / 2**20:.1f} MB; " + "; ".join(f"{k} {len(v)}" for k, v in found.items()))


def main() -> None:
    if "--meeting" in sys.argv:
        repeat = int(sys.argv[sys.argv.index("--repeat") + 1]) if "--repeat" in sys.argv else 3
        print(f"Python {platform.python_version()}, {os.cpu_count()} cores")
        meeting(repeat)
        return
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    max_items = int(args[0]) if args else 100
    pdf = "--no-pdf" not in sys.argv and Path(chromium_path()).exists()
    print(f"Python {platform.python_version()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}")
    print(
        "| items | JSON MB | HTML MB | JSON export s | JSON import s | HTML export s | PDF export s | "
        "export total s | PDF CPU s (Chromium) | peak RSS MB |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    ctx = mp.get_context("spawn")
    for n in (n for n in (10, 50, 100, 200) if n <= max_items):
        parent, child = ctx.Pipe()
        proc = ctx.Process(target=run, args=(n, pdf, child))
        proc.start()
        json_mb, html_mb, times, rss = parent.recv()
        proc.join()
        total = times["json export"] + times["html export"] + times.get("pdf export", 0.0)
        print(
            f"| {n} | {json_mb:.1f} | {html_mb:.1f} | {times['json export']:.2f} | {times['json import']:.2f} | "
            f"{times['html export']:.2f} | {times.get('pdf export', float('nan')):.2f} | {total:.2f} | "
            f"{times.get('pdf cpu', float('nan')):.2f} | {rss:,.0f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
