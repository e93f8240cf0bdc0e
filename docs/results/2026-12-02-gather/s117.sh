#!/bin/bash
# s117 (from .lab/; p116 = f5e6b72, p117 = f5e6b72 with interior-score.diff: permute_aligned_stores' fusions chosen by
# fill / (2 - the share of blocks without edge tests), as if an edge block took twice an interior one's time):
# 40 draws of each element size of seed 4548069071351642754 whose fusions the diff changes (950 of 60000;
# s117-moved.txt), the choice of each build, two rounds.
cd "$(dirname "$0")/.." ; tar xJf .lab/p116.txz -C .lab; tar xJf .lab/p117.txz -C .lab
R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
while read dt ex pm; do
  for b in p116 p117; do
    timeout 30 .lab/$b/xpose-permute-bench --dtype $dt --extents $ex --perm $pm --kernel auto --reps 10 --rounds 2 --no-host-time --explain --json $R/a-$b.jsonl >> $R/a-$b.txt 2>&1
  done
done < docs/results/2026-12-02-gather/s117-moved.txt
python3 - $R > $R/table <<'P'
import json,sys,statistics
R=sys.argv[1]
def load(f):
    d={}
    for l in open(f'{R}/{f}'):
        r=json.loads(l)
        if r['role']=='xpose': d.setdefault(r['case'],{})[r['kernel']]=r['pct_copy']
    return d
h,n=load('a-p116.jsonl'),load('a-p117.jsonl')
for dt in ['u8','fp16','fp32','fp64']:
    xs=sorted((n[c]['auto']-h[c]['auto'],c) for c in h if c in n and c.startswith(dt+' '))
    for x,c in xs[:2]+xs[-2:]: print(f"{x:+6.1f} {c[:44]:44s} {h[c]['auto']:5.1f} -> {n[c]['auto']:5.1f}")
    v=[x for x,_ in xs]
    if v: print(f"{dt} {len(v)}: median {statistics.median(v):+.1f} mean {statistics.mean(v):+.1f} ahead>2 {sum(x>2 for x in v)} behind>2 {sum(x<-2 for x in v)}")
P
cat $R/table
cd $OUT && tar czf x.tgz r && rm -rf r
