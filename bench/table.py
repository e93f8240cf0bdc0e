#!/usr/bin/env python3
"""Markdown tables from xpose-bench / peers.py records, as docs/performance.md shows them.

  python3 bench/table.py ladder FILE... [--case LABEL]...   one table per case: every kernel and peer
  python3 bench/table.py cases FILE...    one row per case: xpose beside every peer, % of copy
  python3 bench/table.py kernels FILE... --kernel NAME...   one row per case, one column per kernel
  python3 bench/table.py choice FILE...   one row per case: the automatic choice against the best named kernel,
                                          then one per rule that chose (records with `rule`): what it loses
  python3 bench/table.py bands FILE...    draws timed with every kernel, grouped by the rule that chose, the
                                          element size and the problem's size (MiB): where another kernel
                                          would do better, and how consistently (a rule bound to measure)
  python3 bench/table.py placement EXACT FILE...   each run (xpose-bench --placement) against the exact one
  python3 bench/table.py random FILE... [--min-mib M]   each --random file's median, 10th percentile and worst,
                                          over its draws of at least M MiB
  python3 bench/table.py behind FILE...  xpose's automatic choice against each peer on the same cases, by time
                                          (each process measures its own copy): per peer the cases it served,
                                          how many xpose leads or trails by more than 5%, and every case it trails
  python3 bench/table.py ab OLD NEW       the same draws (one --random seed; rounds appended to a file are
                                          averaged) through two builds: each report's median, 10th
                                          percentile and worst, and per kernel (OLD's choice) and element
                                          size the mean change of the automatic choice, the largest moves last
  python3 bench/table.py moved OLD NEW [--per-type N] [--seed S]   the draws whose plans two builds'
                                          xpose_plan_draws outputs (on one list) tell apart, as lines
                                          "dtype extents perm" (tools/ab-permute's list): at most N of each
                                          element type, drawn with seed S; how many moved on stderr

Each percentage is of the copy ceiling measured in the same process and run as the figure
(xpose-bench: the faster of cudaMemcpyAsync and copy; peers.py: torch's own copy).
"""
import os
import random
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli import ArgumentParser, fail  # noqa: E402
from results import PEERS, PY_CEILINGS, best_named, by_case, load, peers_in, pick  # noqa: E402


def ladder(records, only):
    for label, rows in by_case(records).items():
        if only and label not in only:
            continue
        print(f"\n**{label}** ({rows[0]['device']}, {rows[0]['date']}, commit {rows[0]['commit']}, "
              f"timing: {rows[0]['timing']})\n")
        print("| kernel | ms (median) | GB/s | % of copy | % of peak | check |")
        print("|---|---:|---:|---:|---:|---|")
        for r in rows:
            print(f"| {r['kernel']} | {r['ms_median']:.4f} | {r['gbps']:.1f} | {r['pct_copy']:.1f}% | "
                  f"{r['pct_peak']:.1f}% | {r['check'] or '-'} |")


def cases(records):
    peers = peers_in(records)
    print("| case | timing | copy GB/s | xpose auto | best named xpose | " + " | ".join(peers) + " |")
    print("|---|---|---:|---:|---|" + "---:|" * len(peers))
    for label, rows in by_case(records).items():
        ceilings = [r for r in rows if r["role"] == "ceiling" and r["kernel"] not in PY_CEILINGS]
        copy = max((r["gbps"] for r in ceilings), default=0)
        auto, best = pick(rows, "auto"), best_named(rows)
        cell = lambda r: f"{r['pct_copy']:.1f}%" if r else "-"  # noqa: E731
        timing = rows[0]["timing"]
        if timing == "graph" and auto:
            copy_ms = min(r["ms_median"] for r in ceilings) if ceilings else 0
            timing = f"graph: {auto['ms_median'] * 1e3:.2f} us/call, copy {copy_ms * 1e3:.2f} us"
        best_text = f"{best['kernel']} {best['pct_copy']:.1f}%" if best else "-"
        print(f"| {label} | {timing} | {copy:.0f} | {cell(auto)} | {best_text} | "
              + " | ".join(cell(pick(rows, p)) for p in peers) + " |")


def kernels(records, names):
    print("| case | " + " | ".join(names) + " |")
    print("|---|" + "---:|" * len(names))
    for label, rows in by_case(records).items():
        cells = [pick(rows, n) for n in names]
        print(f"| {label} | " + " | ".join(f"{r['pct_copy']:.1f}%" if r else "-" for r in cells) + " |")


def mib(r):
    """The MiB a record's problem holds (its elements times their size)."""
    return r["rows"] * r["cols"] * r["batch"] * r["elem_bytes"] / 2**20


def quantiles(values):
    """Median, 10th percentile (nearest rank, the ceil(n / 10)-th lowest, as the benches' own
    --random reports take it) and worst of a report."""
    values = sorted(values)
    return statistics.median(values), values[(len(values) + 9) // 10 - 1], values[0]


def random_report(paths, min_mib=0):
    """Each file's automatic choice as the --random reports give it (median, 10th percentile,
    worst % of copy), over its draws of at least `min_mib` MiB."""
    print(f"| file | draws{f' of {min_mib:g} MiB or more' if min_mib else ''} | median | 10th pct | worst |")
    print("|---|---:|---:|---:|---:|")
    for path in paths:
        pct = [r["pct_copy"] for r in load([path]) if r["kernel"] == "auto"
               and mib(r) >= min_mib]
        if not pct:
            fail(f"{path}: no draw of the automatic choice{f' of {min_mib:g} MiB or more' if min_mib else ''}")
        median, tenth, worst = quantiles(pct)
        print(f"| {os.path.basename(path)} | {len(pct)} | {median:.1f}% | {tenth:.1f}% | {worst:.1f}% |")


def choice(records, tolerance=2.0):
    """The automatic choice beside the fastest named kernel of the same run. The kernel auto
    ran (its record's `chosen`) is timed twice: as `auto` and under its own name, the same
    plan; `chosen / best` takes the faster of the two samples. A row more than `tolerance`
    percent short of the best is marked."""
    print("| case | kernel chosen | xpose auto | the chosen kernel, named | best named xpose | chosen / best |")
    print("|---|---|---:|---:|---|---:|")
    short = 0
    autos, bests = [], []  # % of copy: the automatic choice, the best of each case
    for label, rows in by_case(records).items():
        auto, best = pick(rows, "auto"), best_named(rows)
        if not auto or not best:
            continue
        autos.append(auto["pct_copy"])
        bests.append(max(auto["pct_copy"], best["pct_copy"]))
        named = pick(rows, auto.get("chosen", "")) if auto.get("chosen") else None
        chosen = max(auto["gbps"], named["gbps"] if named else 0)
        ratio = 100.0 * chosen / best["gbps"]
        mark = " **short**" if ratio < 100.0 - tolerance else ""
        short += bool(mark)
        named_cell = f"{named['pct_copy']:.1f}%" if named else "-"
        print(f"| {label} | {auto.get('chosen') or '?'} | {auto['pct_copy']:.1f}% | {named_cell} | "
              f"{best['kernel']} {best['pct_copy']:.1f}% | {ratio:.1f}%{mark} |")
    print(f"\n{short} case(s) where the automatic choice is more than {tolerance:g}% below the best named kernel")
    by_rule(records, tolerance)
    if autos:  # random draws timed with every kernel: how much better choices alone could do
        def spread(v):
            median, tenth, worst = quantiles(v)
            return f"median {median:.1f}%, 10th percentile {tenth:.1f}%, worst {worst:.1f}%"
        print(f"automatic choice: {spread(autos)}; the best kernel of each case: {spread(bests)} of copy")


def by_rule(records, tolerance):
    """Per rule (records that name it, xpose-bench and xpose-permute-bench since 2026-11-28): the
    cases it chose for, the automatic choice's median there, the points of copy the best named
    kernel of each case had over it, and the kernels that were more than `tolerance` points
    faster (how often): where a rule's bounds are worth measuring again."""
    rules = {}
    for rows in by_case(records).values():
        auto, best = pick(rows, "auto"), best_named(rows)
        if not auto or not auto.get("rule"):
            continue
        gain = max(0.0, best["pct_copy"] - auto["pct_copy"]) if best else 0.0
        entry = rules.setdefault(auto["rule"], {"pct": [], "lost": 0.0, "faster": {}})
        entry["pct"].append(auto["pct_copy"])
        entry["lost"] += gain
        if gain > tolerance:
            entry["faster"][best["kernel"]] = entry["faster"].get(best["kernel"], 0) + 1
    if not rules:
        return
    print("\n| rule | cases | choice (median) | points lost to the best | faster by more than "
          f"{tolerance:g} points |")
    print("|---|---:|---:|---:|---|")
    for rule, e in sorted(rules.items(), key=lambda kv: -kv[1]["lost"]):
        faster = ", ".join(f"{k} {n}" for k, n in sorted(e["faster"].items(), key=lambda kv: (-kv[1], kv[0])))
        print(f"| {rule} | {len(e['pct'])} | {statistics.median(e['pct']):.1f}% | {e['lost']:.0f} | {faster or '-'} |")


BANDS_MIB = (4, 16, 64)  # bands: under 4 MiB, 4-16, 16-64, 64 and more


def band_of(auto):
    size = mib(auto)
    lows = [0, *BANDS_MIB]
    k = sum(size >= b for b in BANDS_MIB)
    return f"{lows[k]}+" if k == len(BANDS_MIB) else f"{lows[k]}-{BANDS_MIB[k]}"


def bands(records, tolerance=2.0, shown=3):
    """Draws timed with every kernel (xpose-bench --random --kernel auto K..., xpose-permute-bench
    --random --every-kernel), grouped by the rule that chose, the element size and the problem's
    size band: the choice's median and, for the kernels that would have done best on average,
    the mean change over the choice with how many draws it was more than `tolerance` points
    ahead and behind. Groups with the most points to gain come first."""
    groups = {}
    for rows in by_case(records).values():
        auto = pick(rows, "auto")
        if not auto or not auto.get("rule") or "rows" not in auto:
            continue
        key = (auto["rule"], auto["elem_bytes"], band_of(auto))
        g = groups.setdefault(key, {"pct": [], "by": {}})
        g["pct"].append(auto["pct_copy"])
        for r in rows:
            if r.get("role") == "xpose" and r["kernel"] != "auto":
                g["by"].setdefault(r["kernel"], []).append(r["pct_copy"] - auto["pct_copy"])
    if not groups:
        fail("bands needs records of the automatic choice that name their rule (--random with every kernel)")
    print(f"| rule | element bytes | MiB | draws | choice (median) | kernels ahead on average: mean change "
          f"(draws more than {tolerance:g} points ahead / behind) |")
    print("|---|---:|---|---:|---:|---|")

    def gain(g):  # what the best kernel on average would add over the group
        return max([sum(d) for d in g["by"].values()] + [0.0])

    for (rule, size, band), g in sorted(groups.items(), key=lambda kv: (-gain(kv[1]), kv[0])):
        ranked = sorted(((statistics.mean(d), k, d) for k, d in g["by"].items()), key=lambda t: (-t[0], t[1]))
        cells = [f"{k} {m:+.1f} ({sum(x > tolerance for x in d)}/{sum(x < -tolerance for x in d)} of {len(d)})"
                 for m, k, d in ranked[:shown] if m > 0]
        print(f"| {rule} | {size} | {band} | {len(g['pct'])} | {statistics.median(g['pct']):.1f}% | "
              f"{', '.join(cells) or '-'} |")


def behind(records, margin=5.0, min_mib=0):
    """xpose's automatic choice against every peer on the cases both ran (peers.py's records
    beside xpose-bench's, or xpose-bench's own peers), compared by time: the copy each process
    measures differs, the GPU's work does not. Per peer: the cases, the median time ratio (peer
    / xpose: above 1 xpose is faster), how many xpose leads and trails by more than `margin`
    percent; then every case it trails by more than that, the slowest first. Cases under
    `min_mib` MiB are left out."""
    stats, trails = {}, []
    for label, rows in by_case(records).items():
        auto = pick(rows, "auto")
        if not auto or mib(auto) < min_mib:
            continue
        for r in rows:
            if r["role"] != "peer" or r["ms_median"] <= 0 or auto["ms_median"] <= 0:
                continue
            ratio = r["ms_median"] / auto["ms_median"]
            s = stats.setdefault(r["kernel"], {"ratios": [], "leads": 0, "trails": 0})
            s["ratios"].append(ratio)
            s["leads"] += ratio > 1 + margin / 100
            if ratio < 1 - margin / 100:
                s["trails"] += 1
                trails.append((ratio, r["kernel"], label, auto, r))
    if not stats:
        fail("behind needs records of the automatic choice and of a peer on the same cases")
    print(f"| peer | cases | peer time / xpose time (median) | xpose ahead by more than {margin:g}% | "
          f"peer ahead by more than {margin:g}% |")
    print("|---|---:|---:|---:|---:|")
    for peer in sorted(stats, key=lambda p: PEERS.index(p) if p in PEERS else len(PEERS)):
        s = stats[peer]
        print(f"| {peer} | {len(s['ratios'])} | {statistics.median(s['ratios']):.2f}x | {s['leads']} | {s['trails']} |")
    for ratio, peer, label, auto, r in sorted(trails, key=lambda t: t[0]):
        print(f"{peer} {1 / ratio:.2f}x faster: {label} (xpose {auto.get('chosen') or 'auto'} {auto['ms_median']:.4f} ms "
              f"{auto['pct_copy']:.1f}% of copy, {peer} {r['ms_median']:.4f} ms {r['pct_copy']:.1f}%)")


def placement(paths, tolerance=2.0, min_mib=64):
    """Each run's automatic choice against the first file's (placed exactly, the same draws), on
    the draws of at least `min_mib` MiB: as % of each run's own copy, how many stay within
    `tolerance` points; xpose's GB/s, how many move more than `tolerance` percent."""
    def autos(path):
        rows = [r for r in load([path]) if r["kernel"] == "auto"
                and mib(r) >= min_mib]
        return {r["case"]: r for r in rows}
    base = autos(paths[0])
    print(f"| run | placement | draws | within {tolerance:g} points (% of copy) | GB/s moved more than "
          f"{tolerance:g}% | most lost (GB/s) |")
    print("|---|---|---:|---:|---:|---|")
    for path in paths[1:]:
        run = autos(path)
        common = [c for c in base if c in run]
        if not common:
            continue
        within = sum(abs(run[c]["pct_copy"] - base[c]["pct_copy"]) <= tolerance for c in common)
        moved = {c: 100.0 * (run[c]["gbps"] / base[c]["gbps"] - 1.0) for c in common}
        worst = min(common, key=lambda c: moved[c])
        where = run[common[0]].get("placement", "exact")
        print(f"| {os.path.basename(path)} | {where} | {len(common)} | {within} | "
              f"{sum(abs(v) > tolerance for v in moved.values())} | {moved[worst]:+.1f}% {worst} "
              f"({base[worst].get('chosen') or '?'}) |")


def ab(old_path, new_path, shown=5):
    """The automatic choice of two builds on the same draws, draw by draw (% of each run's own
    copy; a draw's rounds in one file averaged): both reports, then per kernel that OLD chose
    and element size the draws, the mean change and its range, then the largest losses and gains."""
    def autos(path):
        runs = {}
        for r in load([path]):
            if r["kernel"] == "auto":
                runs.setdefault(r["case"], []).append(r)
        return runs
    old, new = autos(old_path), autos(new_path)
    common = [c for c in old if c in new]
    if not common:
        fail(f"{old_path} and {new_path} share no draw of the automatic choice (the same --random seed?)")
    pct = {name: {c: statistics.mean(r["pct_copy"] for r in runs[c]) for c in common}
           for name, runs in (("old", old), ("new", new))}
    print("| build | file | draws | median | 10th pct | worst |")
    print("|---|---|---:|---:|---:|---:|")
    for name, path in (("old", old_path), ("new", new_path)):
        median, tenth, worst = quantiles(pct[name].values())
        print(f"| {name} | {os.path.basename(path)} | {len(common)} | {median:.1f}% | {tenth:.1f}% | {worst:.1f}% |")
    change = {c: pct["new"][c] - pct["old"][c] for c in common}
    groups = {}
    for c in common:
        first = old[c][0]
        groups.setdefault((first.get("chosen") or "?", int(first["elem_bytes"])), []).append(change[c])
    print()
    print("| kernel (old's choice) | element bytes | draws | mean change | least | most |")
    print("|---|---:|---:|---:|---:|---:|")
    for (kernel, size), moved in sorted(groups.items(), key=lambda g: statistics.mean(g[1])):
        print(f"| {kernel} | {size} | {len(moved)} | {statistics.mean(moved):+.1f} | {min(moved):+.1f} | "
              f"{max(moved):+.1f} |")
    print(f"| all | | {len(common)} | {statistics.mean(change.values()):+.1f} | {min(change.values()):+.1f} | "
          f"{max(change.values()):+.1f} |")
    ranked = sorted(common, key=lambda c: change[c])
    print()
    for c in ranked[:shown] + ranked[-shown:] if len(ranked) > 2 * shown else ranked:
        print(f"{change[c]:+6.1f}  {pct['old'][c]:5.1f} -> {pct['new'][c]:5.1f}%  {c} "
              f"({old[c][0].get('chosen') or '?'} -> {new[c][0].get('chosen') or '?'})")


TRANSPOSE_DRAW = re.compile(r"random \d+ of seed \d+: (\S+) (?:batched (\d+)x)?(\d+)x(\d+)(?: ld (\d+)/(\d+))?$")
PERMUTE_DRAW = re.compile(r"(\S+) ([\dx]+) \(([\d,]+)\)")


def moved(old_path, new_path, per_type=0, seed=0):
    """The draws of two xpose_plan_draws outputs on one list whose plans differ, in the list's
    order: permutations as "dtype extents perm" lines, 2-D transposes as
    "dtype rows cols batch ld_src ld_dst" (ld 0: dense; tools/ab-permute reads both); all of them, or
    per_type of each dtype drawn with `seed`."""
    def parse(case):
        t = TRANSPOSE_DRAW.match(case)
        if t:
            dtype, batch, rows, cols, ld_src, ld_dst = t.groups()
            return dtype, f"{dtype} {rows} {cols} {batch or 1} {ld_src or 0} {ld_dst or 0}"
        p = PERMUTE_DRAW.match(case)
        if p:
            dtype, extents, perm = p.groups()
            return dtype, f"{dtype} {extents.replace('x', ',')} {perm}"
        return None

    def plans(path):
        try:
            with open(path) as f:
                rows = [line.rstrip("\n").split("\t") for line in f if line.strip()]
        except OSError as e:
            fail(f"{path}: {e.strerror}")
        for n, row in enumerate(rows, 1):
            if len(row) < 2 or parse(row[0]) is None:
                fail(f"{path}:{n}: not an xpose_plan_draws line of a --list draw")
        return rows
    old, new = plans(old_path), plans(new_path)
    if [row[0] for row in old] != [row[0] for row in new]:
        fail(f"{old_path} and {new_path} are not the plans of one list")
    changed = [o[0] for o, n in zip(old, new) if o[1] != n[1]]
    by_type = {}
    for case in changed:
        by_type.setdefault(parse(case)[0], []).append(case)
    if per_type:
        rng = random.Random(seed)
        keep = {c for cases in by_type.values() for c in rng.sample(cases, min(per_type, len(cases)))}
        changed = [c for c in changed if c in keep]
    for case in changed:
        print(parse(case)[1])
    print(f"{sum(len(v) for v in by_type.values())} of {len(old)} draws moved ("
          + ", ".join(f"{t} {len(v)}" for t, v in sorted(by_type.items())) + f"); {len(changed)} listed",
          file=sys.stderr)


def main():
    ap = ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("kind", choices=["ladder", "cases", "kernels", "choice", "bands", "random", "behind", "placement",
                                     "ab", "moved"])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--case", action="append", default=[], help="ladder: only this case (repeatable)")
    ap.add_argument("--kernel", action="append", default=[], help="kernels: a column (repeatable)")
    ap.add_argument("--min-mib", type=float, default=0, help="random, behind: only cases of at least this many MiB")
    ap.add_argument("--per-type", type=int, default=0, help="moved: at most this many draws of each element type")
    ap.add_argument("--seed", type=int, default=0, help="moved: the seed those are drawn with")
    args = ap.parse_args()
    if args.kind == "ladder":
        ladder(load(args.files), args.case)
    elif args.kind == "kernels":
        kernels(load(args.files), args.kernel)
    elif args.kind == "choice":
        choice(load(args.files))
    elif args.kind == "bands":
        bands(load(args.files))
    elif args.kind == "random":
        random_report(args.files, min_mib=args.min_mib)
    elif args.kind == "behind":
        behind(load(args.files), min_mib=args.min_mib)
    elif args.kind == "placement":
        placement(args.files)
    elif args.kind == "ab":
        if len(args.files) != 2:
            fail("ab compares two files: OLD NEW")
        ab(*args.files)
    elif args.kind == "moved":
        if len(args.files) != 2:
            fail("moved compares two files: OLD NEW")
        moved(*args.files, per_type=args.per_type, seed=args.seed)
    else:
        cases(load(args.files))


if __name__ == "__main__":
    try:
        main()
    except BrokenPipeError:  # `| head`: the reader has what it wanted; nothing more to flush
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(0)
