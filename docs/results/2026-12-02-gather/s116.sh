#!/bin/bash
# s116 (from .lab/; p113 = 233e8d5, p116 = f5e6b72): held-out check of f5e6b72 on fresh seed 4548069071351642754
# (60000 listed; 2044 plans change, found on the CPU with the planner): up to 45 draws of each kind of change
# (s116-moved.txt: the order alone, rule wide_stores' fp32 and fp16, u8 kernel moves both ways, u8 fusions), the
# choice of each build, two rounds. Then the whole GPU suite at f5e6b72.
cd "$(dirname "$0")/.." ; tar xJf .lab/p113.txz -C .lab; tar xJf .lab/p116.txz -C .lab
R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
while read dt ex pm; do
  for b in p113 p116; do
    timeout 30 .lab/$b/xpose-permute-bench --dtype $dt --extents $ex --perm $pm --kernel auto --reps 10 --rounds 2 --no-host-time --explain --json $R/a-$b.jsonl >> $R/a-$b.txt 2>&1
  done
done < docs/results/2026-12-02-gather/s116-moved.txt
python3 - $R > $R/table <<'P'
import json,sys,statistics
R=sys.argv[1]
def load(f):
    d={}
    for l in open(f'{R}/{f}'):
        r=json.loads(l)
        if r['role']=='xpose': d.setdefault(r['case'],{})[r['kernel']]=r['pct_copy']
    return d
h,n=load('a-p113.jsonl'),load('a-p116.jsonl')
v=[n[c]['auto']-h[c]['auto'] for c in h if c in n]
print(f"all {len(v)}: median {statistics.median(v):+.1f} mean {statistics.mean(v):+.1f} ahead>2 {sum(x>2 for x in v)} behind>2 {sum(x<-2 for x in v)} worst {min(v):+.1f}")
P
cat $R/table
timeout 400 .lab/p116/xpose_gpu_tests > $R/tests.txt 2>&1; echo "tests rc $?"; tail -4 $R/tests.txt
cd $OUT && tar czf x.tgz r && rm -rf r
