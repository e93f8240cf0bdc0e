#!/usr/bin/env python3
"""PNG plots from xpose-bench / peers.py records (matplotlib).

  python3 bench/plot.py ladder FILE... --out DIR [--case LABEL]...   the ladder as bars, one PNG per case
  python3 bench/plot.py sweep FILE... --out DIR    % of copy against size, per kernel, one panel per dtype
  python3 bench/plot.py cases FILE... --out DIR    % of copy over the case list: xpose auto and each peer
  python3 bench/plot.py distributed FILE... --out DIR    xpose-dist-bench: % of the same-run all-to-all by size
  python3 bench/plot.py random FILE... --out DIR   --random reports: each device's and seed's draws, sorted
  python3 bench/plot.py quantize FILE... --out DIR xpose-quantize-bench: each recipe's median and worst
                                                   over the shapes, per input and output set, a panel a device

Every bar and point is a percentage of the copy ceiling measured in the same run.
"""
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli import ArgumentParser, fail, need  # noqa: E402
from results import by_case, load, peers_in, pick  # noqa: E402

plt = None  # matplotlib.pyplot, imported by main() once the arguments and files are good


def subtitle(records):
    join = lambda key: ", ".join(dict.fromkeys(r[key] for r in records))  # noqa: E731
    return f"{join('device')}, {join('date')}, commit {join('commit')}; % of the copy ceiling measured in the same run"


def save(fig, out, name):
    fig.tight_layout()
    path = os.path.join(out, name)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    print(path)


def slug(text):
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower()


def ladder(records, out, only):
    for label, rows in by_case(records).items():
        if only and label not in only:
            continue
        rows = [r for r in rows if r["role"] != "ceiling"]
        fig, ax = plt.subplots(figsize=(9, 4.5))
        colors = ["#4c72b0" if r["role"] == "xpose" else "#999999" for r in rows]
        bars = ax.bar([r["kernel"] for r in rows], [r["pct_copy"] for r in rows], color=colors)
        ax.bar_label(bars, fmt="%.1f", fontsize=8)
        ax.axhline(100, color="black", linewidth=0.8, linestyle="--")
        ax.set_ylabel("% of copy bandwidth")
        ax.set_ylim(0, 110)
        ax.set_title(f"Transpose ladder, {label}\n{subtitle(rows)}", fontsize=10)
        ax.tick_params(axis="x", rotation=30)
        save(fig, out, f"ladder-{slug(label)}.png")


def sweep(records, out, _):
    dtypes = list(dict.fromkeys(r["dtype"] for r in records))
    ncols = min(3, len(dtypes) + 1)  # one panel per dtype, and one for the legend
    nrows = -(-(len(dtypes) + 1) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(5 * ncols, 4 * nrows), sharey=True, squeeze=False)
    panels = axes.flatten()
    measured = [r for r in records if r["role"] != "ceiling"]
    kernels = list(dict.fromkeys(r["kernel"] for r in measured))  # one color per kernel in every panel
    palette = list(plt.get_cmap("tab10").colors) + list(plt.get_cmap("Dark2").colors)
    lines = {}
    for ax, dtype in zip(panels, dtypes):
        rows = [r for r in measured if r["dtype"] == dtype]
        for kernel in dict.fromkeys(r["kernel"] for r in rows):
            points = sorted((r["rows"], r["pct_copy"]) for r in rows if r["kernel"] == kernel)
            style = "-" if any(r["role"] == "xpose" for r in rows if r["kernel"] == kernel) else "--"
            (lines[kernel],) = ax.plot([p[0] for p in points], [p[1] for p in points], style, marker="o",
                                       markersize=3, color=palette[kernels.index(kernel) % len(palette)], label=kernel,
                                       linewidth=2.4 if kernel == "auto" else 1.2)
        ax.set_xscale("log", base=2)
        ax.set_title(f"{dtype} ({rows[0]['elem_bytes']}-byte), NxN" if rows else dtype, fontsize=10)
        ax.set_xlabel("N")
        ax.grid(alpha=0.3)
    for row in axes:
        row[0].set_ylabel("% of copy bandwidth")
    handles, labels = [lines[k] for k in kernels], kernels
    for ax in panels[len(dtypes):]:
        ax.axis("off")
    panels[len(dtypes)].legend(handles, labels, loc="center", fontsize=9,
                               title="solid: xpose, dashed: peers; graph-timed below 2x L2")
    fig.suptitle(f"Square transposes by size\n{subtitle(records)}", fontsize=10)
    save(fig, out, "sweep.png")


def cases(records, out, _):
    table = by_case(records)
    labels = list(table)
    series = ["auto"] + peers_in(records)
    fig, ax = plt.subplots(figsize=(max(10, 0.75 * len(labels)), 5))
    width = 0.8 / len(series)
    for i, name in enumerate(series):
        values = [(pick(table[label], name) or {}).get("pct_copy", 0) for label in labels]
        ax.bar([x + (i - (len(series) - 1) / 2) * width for x in range(len(labels))], values, width,
               label="xpose (auto)" if name == "auto" else name)
    ax.axhline(100, color="black", linewidth=0.8, linestyle="--")
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, rotation=40, ha="right", fontsize=8)
    ax.set_ylabel("% of copy bandwidth (missing bar: not served)")
    ax.set_ylim(0, 115)
    ax.legend(fontsize=8, ncol=len(series))
    ax.set_title(f"The case list: xpose beside the peers\n{subtitle(records)}", fontsize=10)
    save(fig, out, "cases.png")


def random_curves(records):
    """The automatic choice's % of copy over each --random report's draws, by (N-D or 2-D,
    device, seed): xpose-permute-bench names a draw "... random K of seed S", xpose-bench
    "random K of seed S: ..."."""
    curves = {}
    for r in records:
        m = re.search(r"random \d+ of seed (\d+)", r["case"])
        if m and r["role"] == "xpose" and r["kernel"] == "auto":
            kind = "2-D" if r["case"].startswith("random") else "N-D"
            curves.setdefault((kind, r["device"], m.group(1)), []).append(r)
    if not curves:
        fail("no --random draws of xpose-bench or xpose-permute-bench in the records")
    return curves


def random_draws(curves, out, _):
    """A quantile curve per report: its draws sorted by % of copy, against their percentile,
    with issue 33's asks (median 95, 10th percentile 90, worst 85) as marks."""
    devices = sorted({device for _, device, _ in curves})
    palette = plt.get_cmap("tab10").colors
    kinds = [k for k in ("N-D", "2-D") if any(key[0] == k for key in curves)]
    fig, axes = plt.subplots(1, len(kinds), figsize=(6.5 * len(kinds), 4.8), sharey=True, squeeze=False)
    for ax, kind in zip(axes[0], kinds):
        styles = {}
        for (k, device, seed), rows in sorted(curves.items()):
            if k != kind:
                continue
            values = sorted(r["pct_copy"] for r in rows)
            style = ["-", "--", ":", "-."][styles.get(device, 0) % 4]  # a device's seeds one after another
            styles[device] = styles.get(device, 0) + 1
            ax.plot([100 * (i + 0.5) / len(values) for i in range(len(values))], values, style,
                    color=palette[devices.index(device) % len(palette)],
                    label=f"{device}, seed {seed}: {len(values)} draws, median {statistics.median(values):.1f}%")
        for x, y, text in [(50, 95, "median asked"), (10, 90, "10th percentile asked"), (0, 85, "worst asked")]:
            ax.plot([x], [y], "k^", markersize=6)
            ax.annotate(text, (x, y), xytext=(4, 5), textcoords="offset points", fontsize=7)
        ax.set_xlim(0, 100)
        ax.set_ylim(0, 110)
        ax.set_xlabel("percentile of the draws (sorted by % of copy)")
        ax.set_title("N-D permutations" if kind == "N-D" else "2-D problems", fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="lower right")
    axes[0][0].set_ylabel("% of copy bandwidth (the automatic choice)")
    rows = [r for rows in curves.values() for r in rows]
    fig.suptitle(f"Random problems\n{subtitle(rows)}", fontsize=10)
    save(fig, out, "random.png")


def load_distributed(files):
    """xpose-dist-bench's records with the library's default steps on cudaMalloc'd buffers (its
    own kind of record; --nccl-memory runs are another ceiling)."""
    import json

    records = []
    for path in files:
        try:
            with open(path) as f:
                records += [json.loads(line) for line in f if line.strip()]
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
            fail(f"cannot read {path}: {getattr(e, 'strerror', None) or e}")
    keys = ("ranks", "dtype", "total_bytes", "alltoall_ms", "xpose_ms", "steps")
    records = [r for r in records if isinstance(r, dict) and all(k in r for k in keys) and r["steps"] == 0
               and not r.get("nccl_memory", False)]
    if not records:
        fail("no xpose-dist-bench records with the default steps in " + ", ".join(files))
    return records


def distributed(records, out, _):
    """% of the all-to-all's bandwidth, and both bandwidths, against the matrix's size, one
    line per rank count and dtype."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    for ranks, dtype in dict.fromkeys((r["ranks"], r["dtype"]) for r in records):
        rows = sorted((r for r in records if (r["ranks"], r["dtype"]) == (ranks, dtype)), key=lambda r: r["total_bytes"])
        gib = [r["total_bytes"] / 2**30 for r in rows]
        label = f"{ranks} GPUs, {dtype}"
        left.plot(gib, [100 * r["alltoall_ms"] / r["xpose_ms"] for r in rows], marker="o", label=label)
        sent = [r["total_bytes"] / ranks * (ranks - 1) / ranks for r in rows]  # what a rank sends to the others
        (line,) = right.plot(gib, [s / (r["xpose_ms"] * 1e6) for s, r in zip(sent, rows)], marker="o",
                             label=f"xpose, {label}")
        right.plot(gib, [s / (r["alltoall_ms"] * 1e6) for s, r in zip(sent, rows)], "--", color=line.get_color(),
                   label=f"all-to-all, {label}")
    for ax in (left, right):
        ax.set_xscale("log", base=2)
        ax.set_xlabel("A in GiB (split evenly by rows)")
        ax.grid(alpha=0.3)
    left.axhline(100, color="black", linewidth=0.8, linestyle="--")
    left.set_ylim(0, 110)
    left.set_ylabel("% of the same-run all-to-all's bandwidth")
    right.set_ylabel("GB/s a rank sends to the others")
    left.legend(fontsize=8)
    right.legend(fontsize=7)
    join = lambda key: ", ".join(dict.fromkeys(str(r[key]) for r in records))  # noqa: E731
    fig.suptitle(f"The distributed transpose against ncclAlltoAll of the same bytes\n"
                 f"{join('device')}, {join('date')}, commit {join('commit')}", fontsize=10)
    save(fig, out, "distributed.png")


RECIPES = ["delayed", "current", "1x128", "128x128", "mxfp8"]


def quantize_rows(records):
    """xpose-quantize-bench's own records ("<input> <R>x<C> <recipe> <outputs>"), or the end of
    the program with one line."""
    rows = [r for r in records
            if r["role"] == "xpose" and len(r["case"].split()) == 4 and r["case"].split()[2] in RECIPES]
    if not rows:
        fail("no xpose-quantize-bench records")
    return rows


def quantize(rows, out, _):
    """A bar a recipe, input and output set at the median over the shapes, a tick at the worst;
    a panel a device."""
    devices = list(dict.fromkeys(r["device"] for r in rows))
    fig, axes = plt.subplots(len(devices), 1, figsize=(12, 3.8 * len(devices)), squeeze=False)
    for ax, device in zip(axes[:, 0], devices):
        mine = [r for r in rows if r["device"] == device]
        series = list(dict.fromkeys((r["dtype"], r["case"].split()[3]) for r in mine))
        recipes = [x for x in RECIPES if any(r["case"].split()[2] == x for r in mine)]
        width = 0.8 / len(series)
        for k, (dtype, outputs) in enumerate(series):
            medians, worst = [], []
            for recipe in recipes:
                v = [r["pct_copy"] for r in mine if r["case"].split()[2] == recipe and (r["dtype"], r["case"].split()[3]) == (dtype, outputs)]
                medians.append(statistics.median(v) if v else 0.0)
                worst.append(min(v) if v else 0.0)
            at = [i + (k - (len(series) - 1) / 2) * width for i in range(len(recipes))]
            ax.bar(at, medians, width, label=f"{dtype} {outputs}")
            ax.plot(at, worst, "k_", markersize=7)
        ax.axhline(100, color="black", linewidth=0.8, linestyle="--")
        ax.set_xticks(range(len(recipes)), recipes)
        ax.set_ylim(0, 110)
        ax.set_ylabel("% of the same bytes' copy")
        ax.legend(fontsize=7, ncol=len(series), loc="lower center")
        ax.set_title(f"FP8 quantization: median over the shapes (bars), worst (ticks)\n{subtitle(mine)}", fontsize=10)
    save(fig, out, "quantize.png")


def main():
    global plt
    ap = ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("kind", choices=["ladder", "sweep", "cases", "distributed", "random", "quantize"])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--out", default=".", help="folder for the PNGs")
    ap.add_argument("--case", action="append", default=[], help="ladder: only this case (repeatable)")
    args = ap.parse_args()
    records = load_distributed(args.files) if args.kind == "distributed" else load(args.files)
    if not records:
        fail("no records in " + ", ".join(args.files))
    if args.kind == "random":
        records = random_curves(records)
    if args.kind == "quantize":
        records = quantize_rows(records)
    need("matplotlib", "pip install matplotlib").use("Agg")
    plt = need("matplotlib.pyplot", "pip install matplotlib")
    try:
        os.makedirs(args.out, exist_ok=True)
        {"ladder": ladder, "sweep": sweep, "cases": cases, "distributed": distributed, "random": random_draws,
         "quantize": quantize}[args.kind](records, args.out, args.case)
    except OSError as e:
        fail(f"cannot write the plots to {args.out}: {e.strerror or e}")


if __name__ == "__main__":
    main()
