#!/bin/bash
# s115 (from .lab/; p114 as in s114; p115 = p114 with permute_aligned_stores walking the row blocks first where they
# are fewer than the column tiles). A: 150 draws of seed 8448756383890137789 (60000 listed) whose
# permute_aligned_stores plan p115 walks row blocks first (s115-rows-first.txt): the choice of p114 and p115 (same
# plan but the order). B: s114's 128 u8 draws (s115-u8-moved.txt): p115's choice (s114 has p113's and p114's).
# Then p115's GPU tests of permute_aligned_stores and the N-D kernels.
cd "$(dirname "$0")/.." ; tar xJf .lab/p114.txz -C .lab; tar xJf .lab/p115.txz -C .lab
R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
while read dt ex pm; do
  for b in p114 p115; do
    timeout 30 .lab/$b/xpose-permute-bench --dtype $dt --extents $ex --perm $pm --kernel auto --reps 10 --rounds 2 --no-host-time --explain --json $R/a-$b.jsonl >> $R/a-$b.txt 2>&1
  done
done < docs/results/2026-12-02-gather/s115-rows-first.txt
while read dt ex pm; do
  timeout 30 .lab/p115/xpose-permute-bench --dtype $dt --extents $ex --perm $pm --kernel auto --reps 10 --rounds 2 --no-host-time --explain --json $R/b-p115.jsonl >> $R/b-p115.txt 2>&1
done < docs/results/2026-12-02-gather/s115-u8-moved.txt
python3 - $R > $R/table <<'P'
import json,sys,statistics
R=sys.argv[1]
def load(f):
    d={}
    for l in open(f'{R}/{f}'):
        r=json.loads(l)
        if r['role']=='xpose': d.setdefault(r['case'],{})[r['kernel']]=r['pct_copy']
    return d
h,n=load('a-p114.jsonl'),load('a-p115.jsonl')
for dt in ['u8','fp16','fp32','fp64']:
    xs=sorted((n[c]['auto']-h[c]['auto'],c) for c in h if c in n and c.startswith(dt+' '))
    for x,c in xs[:2]+xs[-2:]: print(f"{x:+6.1f} {c[:44]:44s} {h[c]['auto']:5.1f} -> {n[c]['auto']:5.1f}")
    v=[x for x,_ in xs]
    if v: print(f"{dt} {len(v)}: median {statistics.median(v):+.1f} mean {statistics.mean(v):+.1f} ahead>2 {sum(x>2 for x in v)} behind>2 {sum(x<-2 for x in v)}")
P
cat $R/table
timeout 200 .lab/p115/xpose_gpu_tests --gtest_filter='*ligned*:*Permute*' > $R/tests.txt 2>&1; echo "tests rc $?"; tail -3 $R/tests.txt
cd $OUT && tar czf x.tgz r && rm -rf r
