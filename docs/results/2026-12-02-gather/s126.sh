#!/bin/bash
# s126 (from .lab/; p120 = 96f351f, p126 = 2f5a73b with permute_packed_chunks leaving the rounds past a tile by a
# block-uniform branch): 60 draws of seed 2753806806 it takes by chunks, not as words (20 u8, 15 fp16, 15 fp32, 10 fp64).
cd "$(dirname "$0")/.." ; for b in p120 p126; do tar xJf .lab/$b.txz -C .lab; done
R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
while read dt ex pm; do
  for b in p120 p126; do
    timeout 30 .lab/$b/xpose-permute-bench --dtype $dt --extents $ex --perm $pm --kernel auto --reps 10 --rounds 2 --no-host-time --explain --json $R/a-$b.jsonl >> $R/a-$b.txt 2>&1
  done
done < docs/results/2026-12-02-gather/s126-chunks.txt
python3 - $R > $R/table <<'P'
import json,sys,statistics
R=sys.argv[1]
def load(f):
    d={}
    for l in open(f'{R}/{f}'):
        r=json.loads(l)
        if r['role']=='xpose': d.setdefault(r['case'],{})[r['kernel']]=r['pct_copy']
    return d
h=load('a-p120.jsonl')
for b in ('p126',):
    n=load(f'a-{b}.jsonl')
    for dt in ('u8','fp16','fp32','fp64'):
        cs=[c for c in h if c in n and c.startswith(dt+' ')]
        v=[n[c]['auto']-h[c]['auto'] for c in cs]
        print(f"{b} {dt} {len(v)}: before median {statistics.median(h[c]['auto'] for c in cs):.1f} after {statistics.median(n[c]['auto'] for c in cs):.1f}; diff median {statistics.median(v):+.1f} ahead>2 {sum(x>2 for x in v)} behind>2 {sum(x<-2 for x in v)} worst {min(v):+.1f} best {max(v):+.1f}")
P
cat $R/table
cd $OUT && tar czf x.tgz r && rm -rf r
