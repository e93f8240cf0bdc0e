#!/bin/bash
# s111 (run from .lab/): rule wide_stores widened to 1-, 2- and 4-byte elements (an experiment's build, .lab/p112: the rule's
# elem_bytes == 8 made <= 8): the first 40 fp32 and fp16 and 22 u8 draws of fresh seed 15344337384778175916 (60000 listed)
# that it would move from permute_vec_tiled (s111-moved.txt, the planner on the CPU), both kernels, two rounds, unchecked
cd "$(dirname "$0")/.." ; tar xJf .lab/p112.txz -C .lab
N=$PWD/.lab/p112; R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
while read dt ex pm; do
  timeout 30 $N/xpose-permute-bench --dtype $dt --extents $ex --perm $pm --kernel auto permute_vec_tiled --reps 10 --rounds 2 --no-host-time --explain --json $R/m.jsonl >> $R/m.txt 2>&1
done < docs/results/2026-12-02-gather/s111-moved.txt
python3 - $R > $R/table <<'P'
import json,sys,statistics
R=sys.argv[1]; d={}
for l in open(f'{R}/m.jsonl'):
    r=json.loads(l)
    if r['role']=='xpose': d.setdefault(r['case'],{})[r['kernel']]=(r['pct_copy'],r.get('rule'))
for dt in ['u8','fp16','fp32']:
    diffs=sorted((v['auto'][0]-v['permute_vec_tiled'][0],c,v) for c,v in d.items() if c.startswith(dt+' ') and 'auto' in v and 'permute_vec_tiled' in v)
    for x,c,v in diffs[:3]+diffs[-3:]: print(f"{x:+6.1f}  {c[:40]:40s} vec_tiled {v['permute_vec_tiled'][0]:5.1f} -> {v['auto'][0]:5.1f} ({v['auto'][1]})")
    ds=[x for x,_,_ in diffs]
    if ds: print(f"{dt} moved {len(ds)}: median {statistics.median(ds):+.1f}, mean {statistics.mean(ds):+.1f}, ahead by >2 {sum(x>2 for x in ds)}, behind by >2 {sum(x<-2 for x in ds)}")
P
cat $R/table
cd $OUT && tar czf x.tgz r && rm -rf r
