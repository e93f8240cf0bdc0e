#!/bin/bash
# s113 (from .lab/, with .lab/p113: xpose-permute-bench built at 233e8d5, stripped, tarred): s111's and s112's questions on
# one build. s111: the 102 draws (s111-moved.txt) that rule wide_stores widened to 1-, 2- and 4-byte elements would move
# from permute_vec_tiled to permute_aligned_stores, both kernels forced. s112: the 48 u8 draws wide-fill.diff would move,
# the choice and both kernels. Two rounds, unchecked.
cd "$(dirname "$0")/.." ; tar xJf .lab/p113.txz -C .lab
N=$PWD/.lab/p113; R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt
while read dt ex pm; do
  timeout 30 $N/xpose-permute-bench --dtype $dt --extents $ex --perm $pm --kernel permute_vec_tiled permute_aligned_stores --reps 10 --rounds 2 --no-host-time --explain --json $R/a.jsonl >> $R/a.txt 2>&1
done < docs/results/2026-12-02-gather/s111-moved.txt
while read dt ex pm; do
  timeout 30 $N/xpose-permute-bench --dtype $dt --extents $ex --perm $pm --kernel auto permute_packed permute_aligned_stores --reps 10 --rounds 2 --no-host-time --explain --json $R/b.jsonl >> $R/b.txt 2>&1
done < docs/results/2026-12-02-gather/s112-moved.txt
python3 - $R > $R/table <<'P'
import json,sys,statistics
R=sys.argv[1]
def load(f):
    d={}
    for l in open(f'{R}/{f}'):
        r=json.loads(l)
        if r['role']=='xpose': d.setdefault(r['case'],{})[r['kernel']]=r['pct_copy']
    return d
d=load('a.jsonl')
for dt in ['u8','fp16','fp32']:
    ds=sorted((v['permute_aligned_stores']-v['permute_vec_tiled'],c,v) for c,v in d.items()
              if c.startswith(dt+' ') and len(v)==2)
    for x,c,v in ds[:3]+ds[-3:]: print(f"{x:+6.1f}  {c[:44]:44s} vec_tiled {v['permute_vec_tiled']:5.1f} aligned_stores {v['permute_aligned_stores']:5.1f}")
    xs=[x for x,_,_ in ds]
    if xs: print(f"{dt} {len(xs)}: median {statistics.median(xs):+.1f}, mean {statistics.mean(xs):+.1f}, ahead>2 {sum(x>2 for x in xs)}, behind>2 {sum(x<-2 for x in xs)}")
d=load('b.jsonl'); xs=[]
for c,v in d.items():
    if len(v)<3: continue
    print(f"{c[:44]:44s} auto {v['auto']:5.1f} packed {v['permute_packed']:5.1f} aligned_stores {v['permute_aligned_stores']:5.1f}")
P
cat $R/table
cd $OUT && tar czf x.tgz r && rm -rf r
