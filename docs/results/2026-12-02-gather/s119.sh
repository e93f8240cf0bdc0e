#!/bin/bash
# s119 (not run: for the H100; from .lab/ with .lab/p113.txz = xpose-permute-bench at 233e8d5 and .lab/p119.txz =
# xpose-permute-bench and xpose_gpu_tests at 28ed685, both stripped): the H100's planner changes of f5e6b72 and
# c0b0ac8 (permute_aligned_stores' row-blocks-first walk, the fill of the tile it runs, fusions weighing edge
# blocks; rule wide_stores stays off there): up to 40 draws of each kind of change of seed 4548069071351642754
# (2537 of 60000 change on the H100; s119-h100-moved.txt, found on the CPU), the choice of each build, two
# rounds. Then the whole GPU suite at 28ed685.
cd "$(dirname "$0")/.." ; tar xJf .lab/p113.txz -C .lab; tar xJf .lab/p119.txz -C .lab
R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt
while read dt ex pm; do
  for b in p113 p119; do
    timeout 30 .lab/$b/xpose-permute-bench --dtype $dt --extents $ex --perm $pm --kernel auto --reps 10 --rounds 2 --no-host-time --explain --json $R/a-$b.jsonl >> $R/a-$b.txt 2>&1
  done
done < docs/results/2026-12-02-gather/s119-h100-moved.txt
python3 - $R > $R/table <<'P'
import json,sys,statistics
R=sys.argv[1]
def load(f):
    d={}
    for l in open(f'{R}/{f}'):
        r=json.loads(l)
        if r['role']=='xpose': d.setdefault(r['case'],{})[r['kernel']]=r['pct_copy']
    return d
h,n=load('a-p113.jsonl'),load('a-p119.jsonl')
for dt in ['u8','fp16','fp32','fp64','']:
    v=[n[c]['auto']-h[c]['auto'] for c in h if c in n and c.startswith(dt)]
    if v: print(f"{dt or 'all'} {len(v)}: median {statistics.median(v):+.1f} mean {statistics.mean(v):+.1f} ahead>2 {sum(x>2 for x in v)} behind>2 {sum(x<-2 for x in v)} worst {min(v):+.1f}")
P
cat $R/table
timeout 400 .lab/p119/xpose_gpu_tests > $R/tests.txt 2>&1; echo "tests rc $?"; tail -4 $R/tests.txt
cd $OUT && tar czf x.tgz r && rm -rf r
