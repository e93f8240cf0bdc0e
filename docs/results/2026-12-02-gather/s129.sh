#!/bin/bash
# s129 (from .lab/; p120 = 96f351f, p129 = 83b00a1: the words of bytes, their edge bytes stored as bytes): the first 30
# of s127's held-out draws, each build's choice, two rounds; compute-sanitizer memcheck and racecheck on
# Permute.PackedLinesOnTheirShapes; then the whole GPU suite at 83b00a1.
cd "$(dirname "$0")/.." ; for b in p120 p129; do tar xJf .lab/$b.txz -C .lab; done
R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
while read dt ex pm; do
  for b in p120 p129; do
    timeout 30 .lab/$b/xpose-permute-bench --dtype $dt --extents $ex --perm $pm --kernel auto --reps 10 --rounds 2 --no-host-time --explain --json $R/a-$b.jsonl >> $R/a-$b.txt 2>&1
  done
done < docs/results/2026-12-02-gather/s129-lines.txt
python3 - $R > $R/table <<'P'
import json,sys,statistics
R=sys.argv[1]
def load(f):
    d={}
    for l in open(f'{R}/{f}'):
        r=json.loads(l)
        if r['role']=='xpose': d[r['case']]=r['pct_copy']
    return d
h,n=load('a-p120.jsonl'),load('a-p129.jsonl')
cs=[c for c in h if c in n]
v=[n[c]-h[c] for c in cs]
print(f"s127 draws {len(v)}: before median {statistics.median(h[c] for c in cs):.1f} after {statistics.median(n[c] for c in cs):.1f}; diff median {statistics.median(v):+.1f} ahead>2 {sum(x>2 for x in v)} behind>2 {sum(x<-2 for x in v)} worst {min(v):+.1f} best {max(v):+.1f}")
P
cat $R/table
for tool in memcheck racecheck; do
  timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 .lab/p129/xpose_gpu_tests --gtest_filter='Permute.PackedLinesOnTheirShapes' > $R/sanitizer-$tool.txt 2>&1; echo "$tool rc $?: $(grep -E 'SUMMARY|PASSED|FAILED' $R/sanitizer-$tool.txt | tr '\n' ' ')"
done
timeout 420 .lab/p129/xpose_gpu_tests > $R/tests.txt 2>&1; echo "tests rc $?"; tail -4 $R/tests.txt
cd $OUT && tar czf x.tgz r && rm -rf r
