#!/bin/bash
# s123 (from .lab/; p120 = 96f351f, p123 = word stores for bytes, lines of 192 bytes or more; uncommitted): the GPU tests
# of permutations and plans (Permute.PackedLinesOnTheirShapes among them); then held out: 60 of the 239 u8 draws of 60000
# of fresh seed 2753806806 that take the word stores (s123-lines.txt), each build's choice, two rounds.
cd "$(dirname "$0")/.." ; tar xJf .lab/p120.txz -C .lab; tar xJf .lab/p123.txz -C .lab
R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
timeout 240 .lab/p123/xpose_gpu_tests --gtest_filter='Permute.*:Plan.*' > $R/tests.txt 2>&1; echo "tests rc $?"; tail -3 $R/tests.txt
while read dt ex pm; do
  for b in p120 p123; do
    timeout 30 .lab/$b/xpose-permute-bench --dtype $dt --extents $ex --perm $pm --kernel auto --reps 10 --rounds 2 --no-host-time --explain --json $R/a-$b.jsonl >> $R/a-$b.txt 2>&1
  done
done < docs/results/2026-12-02-gather/s123-lines.txt
python3 - $R > $R/table <<'P'
import json,sys,statistics
R=sys.argv[1]
def load(f):
    d={}
    for l in open(f'{R}/{f}'):
        r=json.loads(l)
        if r['role']=='xpose': d.setdefault(r['case'],{})[r['kernel']]=r['pct_copy']
    return d
h,n=load('a-p120.jsonl'),load('a-p123.jsonl')
for dt in ("u8",):
    cs=[c for c in h if c in n and c.startswith(dt+' ')]
    v=[n[c]['auto']-h[c]['auto'] for c in cs]
    print(f"{dt} {len(v)}: before median {statistics.median(h[c]['auto'] for c in cs):.1f} after {statistics.median(n[c]['auto'] for c in cs):.1f}; diff median {statistics.median(v):+.1f} ahead>2 {sum(x>2 for x in v)} behind>2 {sum(x<-2 for x in v)} worst {min(v):+.1f} best {max(v):+.1f}")
for c in sorted(h, key=lambda c: n.get(c,{}).get('auto',0)-h[c]['auto'])[:6]:
    print(f"  {c[:50]:50s} {h[c]['auto']:5.1f} -> {n.get(c,{}).get('auto',0):5.1f}")
P
cat $R/table
cd $OUT && tar czf x.tgz r && rm -rf r
