#!/bin/bash
# s147 (from the repository root; p9 = c821d90's benches): s128's 30 worst 2-D draws of 64 MiB or more
# (s147-worst2d.txt), each with every 2-D kernel (xpose-bench --kernel auto ...) and, where it is dense, as the
# permutation (0,2,1) of (batch, rows, cols) with every N-D kernel (xpose-permute-bench): which kernel each class
# wants, before any rule or kernel is changed.
cd "$(dirname "$0")/../../.." ; tar xJf .lab/p9.txz -C .lab
R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
K2="auto aligned_stores cute_padded smem_padded smem_swizzled vec_swizzled cute_vectorized_swizzled cute_vectorized tma_swizzle128 tma tma_batched tma_pipeline cute_tma skinny short_lines"
grep -v '^#' docs/results/2026-12-03-current/s147-worst2d.txt | while read T r c b ls ld pct; do
  timeout 40 .lab/p9/xpose-bench --dtype $T --shape ${r}x${c}x${b} --ld-src $ls --ld-dst $ld --kernel $K2 --no-peers --reps 10 --no-progress --json $R/2d.jsonl > $R/2d-$T-$r-$c-$b.txt 2>&1; echo "2d $T $r $c $b rc $?"
  if [ "$ls" = "$c" ] && [ "$ld" = "$r" ]; then
    timeout 40 .lab/p9/xpose-permute-bench --dtype $T --extents $b,$r,$c --perm 0,2,1 --reps 10 --no-host-time --json $R/nd.jsonl > $R/nd-$T-$r-$c-$b.txt 2>&1; echo "nd rc $?"
  fi
done
python3 - $R <<'PY'
import json, sys, collections
R = sys.argv[1]
best = collections.defaultdict(dict)
for f in ("2d", "nd"):
    try:
        lines = open(f"{R}/{f}.jsonl").read().split("\n")
    except OSError:
        continue
    for l in lines:
        if not l.strip(): continue
        r = json.loads(l)
        if r.get("role") == "xpose":
            key = (r["dtype"], r["rows"], r["cols"], r["batch"]) if f == "2d" else r["case"]
            best[key][r["kernel"]] = r["pct_copy"]
for k, v in best.items():
    top = sorted(v.items(), key=lambda x: -x[1])[:3]
    print(k, "auto", round(v.get("auto", -1), 1), " best:", ", ".join(f"{n} {p:.1f}" for n, p in top))
PY
cd $OUT && tar czf x.tgz r && rm -rf r
