#!/bin/bash
# s84: tiny_batched swizzled staging A/B: old 469c743 (p83) vs new (p84, working tree), checked; tiny GPU tests; the s82 torch cases
cd "$(dirname "$0")/.." ; tar xJf .lab/p83.txz -C .lab; tar xJf .lab/p84.txz -C .lab
O=$PWD/.lab/p83; N=$PWD/.lab/p84; R=$OUT/r; mkdir -p $R
run() { LD_LIBRARY_PATH=/usr/local/cuda/lib64:$1 "${@:2}"; }
for c in "fp32 189x2" "fp32 2x189" "fp32 46x2" "fp32 62x6" "fp32 33x4" "fp32 100x3" "fp32 31x31" "fp32 8x64" "fp32 20x40" \
         "fp64 189x2" "fp64 2x189" "fp64 46x2" "fp64 62x6" "fp64 33x4" "fp64 100x3" "fp64 16x16" "fp64 8x30" \
         "c128 46x2" "c128 2x46" "c128 16x8" "c128 15x14" "c128 100x2" "fp16 189x2" "u8 33x40"; do set -- $c
  E=$(case $1 in u8) echo 1;; fp16) echo 2;; fp32) echo 4;; fp64) echo 8;; c128) echo 16;; esac)
  r=${2%x*}; k=${2#*x}; B=$(( 96*1024*1024 / (r*k*E) ))
  for b in o n; do D=$O; [ $b = n ] && D=$N
    run $D timeout 60 $D/xpose-bench --dtype $1 --shape ${2}x$B --kernel tiny_batched auto --no-peers --reps 20 --check --no-progress --json $R/$b.jsonl >> $R/$b.txt 2>&1
  done
done
python3 bench/table.py ab $R/o.jsonl $R/n.jsonl > $R/ab.txt 2>&1
python3 - $R/o.jsonl $R/n.jsonl >> $R/ab.txt <<'P'
import json,sys
def load(f):
    d={}
    for l in open(f):
        r=json.loads(l)
        if r['kernel']=='tiny_batched': d[r['case']]=r
    return d
o,n=load(sys.argv[1]),load(sys.argv[2])
for c in o: print(f"{o[c]['pct_copy']:6.1f} -> {n[c]['pct_copy']:6.1f}  check {n[c]['check']}  {c}")
P
grep -c FAILED $R/n.txt >> $R/ab.txt
while read dt ex pm; do [ -z "$dt" ] && continue
  run $N timeout 60 $N/xpose-permute-bench --dtype $dt --extents $ex --perm $pm --reps 20 --no-host-time --check --json $R/nd.jsonl >> $R/nd.txt 2>&1
done <<'L'
c128 29,1738,46,2 0,1,3,2
fp64 13,618,189,2 0,1,3,2
fp64 551,13,62,6 0,1,3,2
L
grep -E "^\| (c128|fp64)|auto" $R/nd.txt | head -12 >> $R/ab.txt
run $N timeout 200 $N/xpose_gpu_tests --gtest_filter='*tiny_batched*:*auto*' --gtest_brief=1 > $R/tests.log 2>&1; echo "tests rc $? $(tail -2 $R/tests.log | tr '\n' ' ')" >> $R/ab.txt
cat $R/ab.txt
cd $OUT && tar czf x.tgz r && rm -rf r
