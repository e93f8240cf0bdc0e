#!/bin/bash
# s98: short_lines de-interleave, lanes along a line (p99, by-line diff) vs across (p98, 08ed1b0); then every N-D kernel on the worst 1- and 2-byte draws of s94 (p98)
cd "$(dirname "$0")/.." ; tar xJf .lab/p98.txz -C .lab; tar xJf .lab/p99.txz -C .lab
O=$PWD/.lab/p98; N=$PWD/.lab/p99; R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
timeout 100 $N/xpose_gpu_tests --gtest_filter='*Sweep*short_lines*:*Sweep*auto*' --gtest_brief=1 > $R/tests.log 2>&1; echo "sweep rc $? $(tail -2 $R/tests.log | tr '\n' ' ')" > $R/table
while read dt ex pm; do
  timeout 30 $O/xpose-permute-bench --dtype $dt --extents $ex --perm $pm --kernel short_lines --check --reps 20 --no-host-time --json $R/o.jsonl >> $R/o.txt 2>&1
  timeout 30 $N/xpose-permute-bench --dtype $dt --extents $ex --perm $pm --kernel auto short_lines --check --reps 20 --no-host-time --json $R/n.jsonl >> $R/n.txt 2>&1
done <<'L'
u8 26073,41 1,0
fp16 50915,23 1,0
fp16 26496,63 1,0
u8 38375,49 1,0
fp64 61248,15 1,0
fp16 47744,25 1,0
fp16 63101,15 1,0
u8 43392,31 1,0
u8 34747,67 1,0
fp32 225,1347,21 2,0,1
u8 541,330,125 2,0,1
u8 3102,765,12 2,0,1
u8 421,2379,108 2,0,1
u8 387,1481,3,35 3,0,1,2
u8 3624,518,55 2,0,1
fp32 267,3279,19 2,0,1
u8 12,662,388,21 3,0,1,2
fp16 1000,1003,50 2,0,1
fp64 16,798,19,9 0,3,1,2
fp16 3348,8,2,6,23,13 0,5,1,2,3,4
L
python3 - $R/o.jsonl $R/n.jsonl >> $R/table <<'P'
import json,sys
o={};n={}
for l in open(sys.argv[1]):
    r=json.loads(l)
    if r['kernel']=='short_lines': o[r['case']]=r['pct_copy']
for l in open(sys.argv[2]):
    r=json.loads(l)
    if r['role']=='xpose': n.setdefault(r['case'],{})[r['kernel']]=(r['pct_copy'],r.get('chosen',''))
for c,d in n.items():
    a=d.get('auto',(0,'')); s=d.get('short_lines',(0,''))
    print(f"{c[:40]:40s} choice {a[0]:5.1f} {a[1]:22s} lines-across {o.get(c,0):5.1f} lines-along {s[0]:5.1f}")
P
echo "FAILED lines: $(grep -c FAILED $R/n.txt $R/o.txt | tr '\n' ' ')" >> $R/table
cat $R/table
while read dt ex pm; do
  timeout 60 $O/xpose-permute-bench --dtype $dt --extents $ex --perm $pm --reps 10 --no-host-time --json $R/every.jsonl >> $R/every.txt 2>&1
done < .lab/worst.txt
python3 - $R/every.jsonl >> $R/table <<'P'
import json,sys,collections
d=collections.defaultdict(dict)
for l in open(sys.argv[1]):
    r=json.loads(l)
    if r['role']=='xpose': d[r['case']][r['kernel']]=(r['pct_copy'],r.get('chosen',''))
for c,k in d.items():
    a=k.pop('auto',(0,''))
    best=sorted(k.items(),key=lambda kv:-kv[1][0])[:3]
    print(f"{c[:44]:44s} auto {a[0]:5.1f} {a[1][:20]:20s} | "+" ".join(f"{n[:18]} {v[0]:.1f}" for n,v in best))
P
cat $R/table
cd $OUT && tar czf x.tgz r && rm -rf r
