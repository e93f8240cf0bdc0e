#!/bin/bash
# s109 (run from .lab/): rule wide_stores (aligned 8-byte forms that rule contiguous_sides would take to permute_aligned_stores
# ahead of whole_vectors' permute_vec_tiled; .lab/p109) held out: the first 90 fp64 draws of fresh seed 81055428942923583 that
# the rule moves (s109-moved.txt, found on the CPU with the planner), the new choice and permute_vec_tiled, two rounds, the
# first 10 checked; then 500 fresh N-D draws through the choice, db29359 (.lab/p103) against it (bench/table.py ab)
cd "$(dirname "$0")/.." ; for p in p103 p109; do tar xJf .lab/$p.txz -C .lab; done
O=$PWD/.lab/p103; N=$PWD/.lab/p109; R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
i=0; while read dt ex pm; do i=$((i+1)); c=""; [ $i -le 10 ] && c=--check
  timeout 30 $N/xpose-permute-bench --dtype $dt --extents $ex --perm $pm --kernel auto permute_vec_tiled $c --reps 10 --rounds 2 --no-host-time --explain --json $R/m.jsonl >> $R/m.txt 2>&1
done < docs/results/2026-12-02-gather/s109-moved.txt
S=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
for b in O N; do d=${!b}
  timeout 90 $d/xpose-permute-bench --random 500 --seed $S --no-host-time --json $R/nd-$b.jsonl > $R/nd-$b.txt 2>&1
done
python3 - $R > $R/table <<'P'
import json,sys,statistics
R=sys.argv[1]; d={}
for l in open(f'{R}/m.jsonl'):
    r=json.loads(l)
    if r['role']=='xpose': d.setdefault(r['case'],{})[r['kernel']]=(r['pct_copy'],r.get('rule'))
diffs=sorted((v['auto'][0]-v['permute_vec_tiled'][0],c,v) for c,v in d.items() if 'auto' in v and 'permute_vec_tiled' in v)
for x,c,v in diffs[:5]+diffs[-5:]: print(f"{x:+6.1f}  {c[:40]:40s} vec_tiled {v['permute_vec_tiled'][0]:5.1f} -> {v['auto'][0]:5.1f} ({v['auto'][1]})")
ds=[x for x,_,_ in diffs]
print(f"moved {len(ds)}: median {statistics.median(ds):+.1f}, mean {statistics.mean(ds):+.1f}, ahead by >2 {sum(x>2 for x in ds)}, behind by >2 {sum(x<-2 for x in ds)}, rules {sorted({v['auto'][1] for _,_,v in diffs})}")
P
echo "failed: $(grep -ic 'fail\|mismatch' $R/m.txt)" >> $R/table
python3 bench/table.py ab $R/nd-O.jsonl $R/nd-N.jsonl > $R/ab.md 2>&1
cat $R/table; head -4 $R/ab.md; grep -i 'aligned_stores\|vec_tiled' $R/ab.md | head -8
cd $OUT && tar czf x.tgz r && rm -rf r
