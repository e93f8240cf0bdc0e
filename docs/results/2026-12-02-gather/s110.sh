#!/bin/bash
# s110 (run from .lab/): rule wide_stores with its bound on dst's fastest axis (64 bytes; .lab/p110) held out: the first 90
# fp64 draws of fresh seed 2673638136069942819 that it moves (s110-moved.txt, found on the CPU with the planner), the new
# choice and permute_vec_tiled, two rounds, the first 10 checked; then the whole GPU suite at d82f0ad (.lab/p111)
cd "$(dirname "$0")/.." ; for p in p110 p111; do tar xJf .lab/$p.txz -C .lab; done
N=$PWD/.lab/p110; R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
i=0; while read dt ex pm; do i=$((i+1)); c=""; [ $i -le 10 ] && c=--check
  timeout 30 $N/xpose-permute-bench --dtype $dt --extents $ex --perm $pm --kernel auto permute_vec_tiled $c --reps 10 --rounds 2 --no-host-time --explain --json $R/m.jsonl >> $R/m.txt 2>&1
done < docs/results/2026-12-02-gather/s110-moved.txt
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
timeout 420 .lab/p111/xpose_gpu_tests --gtest_brief=1 > $R/suite.log 2>&1; echo "suite rc $? $(tail -3 $R/suite.log | tr '\n' ' ')" >> $R/table
cat $R/table
cd $OUT && tar czf x.tgz r && rm -rf r
