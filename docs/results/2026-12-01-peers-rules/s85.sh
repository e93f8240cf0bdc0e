#!/bin/bash
# s85: final f49e6e4 on the H200: GPU suite, tiny_batched 8/16-byte checked, N-D random + PyTorch, 2-D random + cuBLAS
cd "$(dirname "$0")/.." ; tar xJf .lab/p85.txz -C .lab
N=$PWD/.lab/p85; R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$N
nvidia-smi --query-gpu=name,driver_version --format=csv > $R/table
S1=$(od -An -N4 -tu4 /dev/urandom | tr -d ' '); S2=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
timeout 60 $N/xpose-permute-bench --random 500 --seed $S1 --reps 10 --no-host-time --json $R/nd-$S1.jsonl > $R/nd-$S1.txt 2>&1
grep -m1 "random:" $R/nd-$S1.txt >> $R/table
timeout 120 python3 bench/peers.py --bench $N/xpose-permute-bench --random 500 --seed $S1 --no-cupy --reps 10 --json $R/ndp-$S1.jsonl > $R/ndp-$S1.txt 2>&1
python3 bench/table.py behind $R/nd-$S1.jsonl $R/ndp-$S1.jsonl > $R/behind-nd.txt 2>&1; head -3 $R/behind-nd.txt | tail -1 >> $R/table
timeout 90 $N/xpose-bench --random 500 --seed $S2 --kernel auto --reps 10 --no-progress --json $R/2d-$S2.jsonl > $R/2d-$S2.txt 2>&1
grep -m1 "random:" $R/2d-$S2.txt >> $R/table
python3 bench/table.py behind $R/2d-$S2.jsonl --min-mib 64 > $R/behind-2d.txt 2>&1; head -4 $R/behind-2d.txt | tail -2 >> $R/table
for c in "fp64 189x2" "fp64 46x2" "fp64 62x6" "fp64 33x4" "fp64 8x30" "c128 46x2" "c128 16x8" "c128 15x14" "c128 100x2" "fp32 46x2" "fp32 62x6"; do set -- $c
  E=$(case $1 in fp32) echo 4;; fp64) echo 8;; c128) echo 16;; esac); r=${2%x*}; k=${2#*x}; B=$(( 96*1024*1024 / (r*k*E) ))
  timeout 30 $N/xpose-bench --dtype $1 --shape ${2}x$B --kernel tiny_batched --no-peers --reps 20 --check --no-progress --json $R/tiny.jsonl >> $R/tiny.txt 2>&1
done
python3 -c "
import json
for l in open('$R/tiny.jsonl'):
    r=json.loads(l)
    if r['kernel']=='tiny_batched': print(f\"{r['pct_copy']:6.1f} {r['check']} {r['case']}\")" >> $R/table
timeout 400 $N/xpose_gpu_tests > $R/tests.log 2>&1; echo "tests rc $? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' $R/tests.log | tr '\n' ' ')" >> $R/table
cat $R/table
cd $OUT && tar czf x.tgz r && rm -rf r
