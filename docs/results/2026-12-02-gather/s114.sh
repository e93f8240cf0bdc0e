#!/bin/bash
# s114 (from .lab/; .lab/p113 = 233e8d5, .lab/p114 = 233e8d5 with wide-fill.diff and rule wide_stores for 2- to 8-byte
# elements). A: the 227 draws of fresh seed 8448756383890137789 (60000 listed) whose plan the change moves (all but 92
# of the 152 fp32 ones it sends to wide_stores; s114-moved.txt, the planner on the CPU), the choice of each build.
# B: 130 u8 and 70 fp16 draws of that seed that rules contiguous_sides / short_sides take with a run under 128 bytes
# (s114-fit.txt): permute_packed and permute_aligned_stores (p114), to fit the line between them.
# Then p114's GPU tests of the N-D kernels.
cd "$(dirname "$0")/.." ; tar xJf .lab/p113.txz -C .lab; tar xJf .lab/p114.txz -C .lab
R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt
while read dt ex pm; do
  for b in p113 p114; do
    timeout 30 .lab/$b/xpose-permute-bench --dtype $dt --extents $ex --perm $pm --kernel auto --reps 10 --rounds 2 --no-host-time --explain --json $R/a-$b.jsonl >> $R/a-$b.txt 2>&1
  done
done < docs/results/2026-12-02-gather/s114-moved.txt
while read dt ex pm; do
  timeout 30 .lab/p114/xpose-permute-bench --dtype $dt --extents $ex --perm $pm --kernel permute_packed permute_aligned_stores --reps 10 --rounds 2 --no-host-time --explain --json $R/b.jsonl >> $R/b.txt 2>&1
done < docs/results/2026-12-02-gather/s114-fit.txt
python3 - $R > $R/table <<'P'
import json,sys,statistics,re
R=sys.argv[1]
def load(f):
    d={}
    for l in open(f'{R}/{f}'):
        r=json.loads(l)
        if r['role']=='xpose': d.setdefault(r['case'],{})[r['kernel']]=r['pct_copy']
    return d
h,n=load('a-p113.jsonl'),load('a-p114.jsonl')
for dt in ['u8','fp16','fp32']:
    xs=sorted((n[c]['auto']-h[c]['auto'],c) for c in h if c in n and c.startswith(dt+' '))
    for x,c in xs[:2]+xs[-2:]: print(f"{x:+6.1f} {c[:44]:44s} {h[c]['auto']:5.1f} -> {n[c]['auto']:5.1f}")
    v=[x for x,_ in xs]
    if v: print(f"{dt} {len(v)}: median {statistics.median(v):+.1f} mean {statistics.mean(v):+.1f} ahead>2 {sum(x>2 for x in v)} behind>2 {sum(x<-2 for x in v)}")
b=load('b.jsonl'); w=[v['permute_aligned_stores']-v['permute_packed'] for v in b.values() if len(v)==2]
print(f"fit: {len(w)} draws, aligned_stores ahead of packed on {sum(x>0 for x in w)}")
P
cat $R/table
timeout 170 .lab/p114/xpose_gpu_tests --gtest_filter='*Permute*:*Nd*' > $R/tests.txt 2>&1; echo "tests rc $?"; tail -3 $R/tests.txt
cd $OUT && tar czf x.tgz r && rm -rf r
