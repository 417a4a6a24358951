"""Ensemble paths: joint thresholds for two or more classifiers via the graph and analytic paths."""

from dataclasses import dataclass
from typing import Any

import streamlit as st

from engine.backends import resampling_note
from engine.errors import InputError
from engine.io import RatedData
from engine.pn import (
    FAMILIES,
    ThresholdGrid,
    analytic_path,
    best_grid_point,
    bootstrap_graph_path,
    bootstrap_spread_table,
    compare_paths,
    ensemble_report,
    frontier,
    graph_path,
    joint_thresholds_sentence,
    path_operating_point,
    paths_pn_figure,
    threshold_space_figure,
)
from engine.presentation import format_value
from engine.record import new_item
from views.controls import chosen_target, money_sentence, money_settings
from views.counted import count_caption, counted_grid
from views.forms.counts import grid_of
from views.inputs import input_picker
from views.navigation import current_link, go_to, routed
from views.propose import Proposal, propose_decision
from views.record_button import add_to_record
from views.state import md, memo, on_click, progress_callback
from views.tables import show_table

RATED, COUNTS = "Rated documents", "Aggregated counts (t1..tk, tp, fp)"


@dataclass(frozen=True)
class GridView:
    """The joint threshold grid the page works on, with the settings it was counted with."""

    grid: ThresholdGrid
    key: tuple  # identity of the grid in memo keys
    cols: tuple
    rule: str
    bins: int
    spacing: str
    family: str
    source_summary: dict
    rated: RatedData | None = None  # rated rows in memory: the bootstrap resamples them
    scores: Any = None  # their score columns, in the order of ``cols``
    rows_needed: str | None = None  # why the bootstrap is not offered (rated rows not in memory)


def rated_grid() -> GridView:
    """The grid of rated documents, counted where the rows are."""
    dataset = input_picker("rated", key="paths_rated", label="Rated data")
    d = dataset.rated
    if d.n_classifiers < 2:
        st.info(
            f"**{md(d.name)}** has one score column ({md(d.score_names[0])}). Joint thresholds need two or "
            "more classifiers: load a file with several score columns on the Data page, or use aggregated "
            "counts."
        )
        go_to("data")
        st.stop()
    c = st.columns([3.8, 0.9, 1.5, 1.4, 1.4])  # room for two chips and for "quantile", "spline" at 1,280 px
    default_cols = list(d.score_names[:2])
    if any(name not in d.score_names for name in st.session_state.get("cols", [])):
        del st.session_state["cols"]  # a new data set: the old selection no longer applies, use the default
    cols = c[0].multiselect(
        "Classifiers (score columns)",
        d.score_names,
        default=default_cols,
        key="cols",
        bind="query-params",
        persist_state="session",
    )
    rule = c[1].radio(
        "Rule",
        ["or", "and"],
        format_func=str.upper,
        key="rule",
        bind="query-params",
        persist_state="session",
        help="OR: flag if any score reaches its threshold; AND: if all do.",
    )
    bins = c[2].slider(
        "Grid size per classifier", 10, 300, 100, 10, key="bins", bind="query-params", persist_state="session"
    )
    spacing = c[3].selectbox(
        "Spacing",
        ["quantile", "uniform"],
        key="spacing",
        bind="query-params",
        persist_state="session",
        help="Quantile spacing resolves the rare top tail.",
    )
    family = c[4].selectbox(
        "Analytic family", list(FAMILIES), key="family", bind="query-params", persist_state="session"
    )
    if len(cols) < 2:
        st.warning("Choose at least two classifiers.")
        st.stop()
    cols = tuple(cols)
    grid_key = (*dataset.key, cols, rule, int(bins), spacing)
    grid, stats = counted_grid(dataset, cols, bins=int(bins), rule=rule, spacing=spacing)
    count_caption(stats, "non-empty grid cells")
    rows_needed = resampling_note(d)
    in_memory = None if rows_needed else d
    return GridView(
        grid,
        grid_key,
        cols,
        rule,
        int(bins),
        spacing,
        family,
        d.summary(),
        in_memory,
        None if rows_needed else d.columns(cols),
        rows_needed,
    )


def counts_grid() -> GridView:
    """The grid of an aggregated counts table, used as given."""
    counts = input_picker("counts", key="counts_input", label="Aggregated counts")
    if counts is None:
        st.stop()
    c = st.columns(2)
    bins = c[0].slider(
        "Grid size per threshold when the table is irregular",
        10,
        200,
        50,
        10,
        key="counts_bins",
        bind="query-params",
        persist_state="session",
    )
    family = c[1].selectbox(
        "Analytic family", list(FAMILIES), key="family", bind="query-params", persist_state="session"
    )

    grid_key = ("counts", counts.fingerprint, int(bins))
    grid = grid_of(counts.raw, int(bins), counts.name)
    source_summary = {"name": counts.name, "fingerprint_sha256": counts.fingerprint, "format": "aggregated counts"}
    st.caption(
        "Counts are used as given (the combination rule is whatever produced them); the bootstrap needs "
        "documents and is not available."
    )
    return GridView(grid, grid_key, grid.names, "given", int(bins), "as uploaded", family, source_summary)


def graph_bootstrap(v: GridView):
    """The bootstrap spread of the graph path, when asked for (rated rows in memory only)."""
    if v.rows_needed:
        st.caption(f"No bootstrap spread of the graph path on data counted on the server: {v.rows_needed}")
    if v.rated is None or not st.toggle(
        "Add the bootstrap spread of the graph path",
        key="boot_paths",
        bind="query-params",
        persist_state="session",
        help="Resample the documents, rebuild the grid counts, redo the graph "
        "path: how much would the path move with other data?",
    ):
        return None
    n_boot = st.number_input(
        "Replicates", 10, 500, 30, 10, key="boot_paths_n", bind="query-params", persist_state="session"
    )
    d = v.rated

    def run_boot():
        bar, update = progress_callback(f"Bootstrapping the graph path ({int(n_boot)} replicates)")
        result = bootstrap_graph_path(v.scores, d.labels, d.weights, grid=v.grid, n_boot=int(n_boot), progress=update)
        bar.empty()
        return result

    return memo(("graph_boot", *v.key, int(n_boot)), run_boot)


def figures(v: GridView, front, paths, points, boot):
    """The threshold space (a slice of it for k > 2) and the PN view, drawn side by side."""
    grid, cols = v.grid, v.cols
    c = st.columns([1, 1, 1, 3])
    heat = c[0].radio(
        "Heatmap of",
        ["tp", "precision"],
        format_func=lambda x: "TP" if x == "tp" else "precision",
        key="heat",
        bind="query-params",
        persist_state="session",
        horizontal=True,
    )
    dims, fixed = (0, 1), {}
    if grid.k > 2:
        a_name = c[1].selectbox("Vertical axis", cols, index=0, key="dim_a")
        b_name = c[2].selectbox("Horizontal axis", [n for n in cols if n != a_name], index=0, key="dim_b")
        dims = (cols.index(a_name), cols.index(b_name))
        with c[3]:
            for j, name in enumerate(cols):
                if j not in dims:
                    fixed[j] = st.slider(f"Slice: threshold index of {name}", 0, grid.shape[j] - 1, 0, key=f"fix_{j}")
            st.caption("Paths are projected onto the two shown axes.")
    figs = st.columns(2)
    space_fig = threshold_space_figure(grid, paths, points, value=heat, dims=dims, fixed=fixed, boot=boot)
    pn_view = paths_pn_figure(grid, front, paths, points)
    figs[0].plotly_chart(space_fig, key="space_chart")
    figs[1].plotly_chart(pn_view, key="paths_pn_chart")
    return [("Threshold space", space_fig), ("PN view", pn_view)]


def report_section(v: GridView, target: float, table, points: dict, figs, spread, boot, money: dict) -> None:
    st.subheader("Report")
    settings = {
        "classifiers": list(v.cols),
        "rule": v.rule,
        "grid_size": v.bins,
        "spacing": v.spacing,
        "analytic_family": v.family,
        "target": target,
        "graph_bootstrap_replicates": boot.n_boot if boot is not None else None,
        **money,
    }
    report_key = (v.key, v.family, target, boot.n_boot if boot is not None else 0, tuple(sorted(money.items())))
    built = on_click(
        "paths_report",
        report_key,
        st.button("Build report", key="build_paths_report"),
        lambda: ensemble_report(v.source_summary, settings, table, points, figures=figs, bootstrap_summary=spread),
        spinner="Building the report",
    )
    if built is None:
        st.caption("Build the report to download it; it records the data set fingerprint and every setting above.")
        return
    r = st.columns(2)
    r[0].download_button(
        "Download report (HTML)",
        built[0].encode(),
        file_name="joint_thresholds.html",
        mime="text/html",
        key="paths_report_html",
    )
    r[1].download_button(
        "Download joint thresholds (JSON)",
        built[1].encode(),
        file_name="joint_thresholds.json",
        mime="application/json",
        key="paths_report_json",
    )


def decision_cards(v: GridView, graph, gp, ap, front) -> None:
    """The decision the page headlines: the graph path's joint thresholds and what they flag at the target; the
    grid and the runtimes (the machine's numbers) in a details expander."""
    rule = {"or": " OR ", "and": " AND "}.get(str(v.rule).lower(), ", ")
    thresholds = rule.join(f"{name} ≥ {format_value(t, 'threshold')}" for name, t in zip(v.cols, graph.threshold))
    st.markdown(f"**Joint thresholds (graph path):** {md(thresholds)}")
    r = st.columns(4)
    r[0].metric("True positives at the target", format_value(graph.tp, "count"))
    r[1].metric("False positives at the target", format_value(graph.fp, "count"))
    r[2].metric("Precision", format_value(graph.precision, "share"))
    share = gp.auc / front.area if front.area > 0 else None
    r[3].metric(
        "Share of the frontier",
        format_value(share, "share"),
        help="The graph path's area as a share of the area under the frontier (the most any path can reach).",
    )
    with st.expander("Grid and runtimes"):
        tabulated = (
            f"counts tabulated in {format_value(v.grid.seconds, 'seconds')}"
            if v.grid.seconds
            else "counts as read from the file"
        )
        st.caption(
            f"Grid {' × '.join(map(str, v.grid.shape))} ({tabulated}); graph path found in "
            f"{format_value(gp.runtime_s, 'seconds')}, analytic ({v.family}) path in "
            f"{format_value(ap.runtime_s, 'seconds')}; frontier area {format_value(front.area, 'number')}."
        )


@st.fragment
def paths_view(v: GridView) -> None:
    """The paths at a target, their figures, comparison and report: a target move reruns only this part."""
    grid = v.grid
    target, money = chosen_target("paths")
    front = memo(("frontier", *v.key), lambda: frontier(grid))
    gp = memo(("graph", *v.key), lambda: graph_path(grid))
    with st.spinner(f"Optimising the analytic ({v.family}) path"):
        ap = memo(("analytic", *v.key, v.family), lambda: analytic_path(grid, v.family))
    paths = [gp, ap]
    try:
        ops = {p.method: path_operating_point(p, target) for p in paths}
        best = best_grid_point(grid, target)
    except InputError as exc:  # a target no path has (money beyond any number in a crafted link)
        st.error(f"**No joint thresholds for this target.** {md(exc)}")
        return
    graph = ops[gp.method]
    decision_cards(v, graph, gp, ap, front)
    in_money = money_sentence(graph.tp, graph.fp, graph.mp_above, money)
    if in_money:
        st.markdown(md(f"Graph path — {in_money}"))
    boot = graph_bootstrap(v)
    figs = figures(v, front, paths, [*ops.items(), ("best grid point", best)], boot)

    st.subheader("Comparison")
    table = compare_paths(grid, paths, target, front=front)
    show_table(table, transpose_on="method")
    spread = None
    if boot is not None:
        spread = bootstrap_spread_table(boot, target)
        st.caption(f"Graph path over {boot.n_boot} bootstrap replicates: 5 %, 50 % and 95 % quantiles.")
        show_table(spread, row_kinds="quantity")

    def record_item():
        return new_item(
            "joint thresholds",
            f"Joint thresholds of {', '.join(v.cols)} ({str(v.rule).upper()}) at marginal precision {format_value(target, 'share')}",
            " ".join(
                filter(
                    None,
                    [
                        joint_thresholds_sentence(v.cols, ops, best, rule=v.rule),
                        in_money and f"Graph path — {in_money}",
                    ],
                )
            ),
            tables=[("Graph and analytic paths compared", table.drop(columns=["runtime_s"], errors="ignore"))],
            figures=figs,
            data_fingerprint=str(v.source_summary.get("fingerprint_sha256", "")),
            settings={
                "classifiers": list(v.cols),
                "rule": v.rule,
                "grid_size": v.bins,
                "family": v.family,
                "target": target,
                **money_settings(money),
            },
            link=current_link({"target": target}),
        )

    add_to_record(record_item, key="record_paths")
    propose_decision(
        lambda: Proposal(
            "joint_thresholds",
            ", ".join(v.cols),
            [float(t) for t in graph.threshold],
            target,
            graph.tp,
            graph.fp,
            {"rule": v.rule, "grid_size": v.bins, "spacing": v.spacing, "path": "graph", **money_settings(money)},
        ),
        key="propose_paths",
        record=record_item,
    )
    report_section(v, target, table, {**ops, "best grid point": best}, figs, spread, boot, money_settings(money))


routed()  # a page Streamlit ran without app.py runs again through it (views.navigation.routed)
st.title("Ensemble paths")
grid_source = st.radio(
    "Grid from",
    [RATED, COUNTS],
    horizontal=True,
    key="grid_source",
    bind="query-params",
    persist_state="session",
    help="Aggregated counts: one row per threshold tuple with the TP and "
    "FP counted there, like the paper's 4-column files.",
)
view = rated_grid() if grid_source == RATED else counts_grid()
paths_view(view)
