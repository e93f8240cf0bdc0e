#!/bin/bash
# s128 (from .lab/; p128 = 9417655, the library of 2f5a73b): issue 33's random reports on the H200 without the peers and
# placement: N-D (500 draws) and 2-D (500 draws) on two fresh seeds each, median / 10th percentile / worst last.
cd "$(dirname "$0")/.." ; tar xJf .lab/p128.txz -C .lab
R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
fresh() { od -An -N4 -tu4 /dev/urandom | tr -d ' '; }
for k in 1 2; do
  seed=$(fresh)
  timeout 110 .lab/p128/xpose-permute-bench --random 500 --seed $seed --reps 10 --no-host-time --json $R/nd-$seed.jsonl > $R/nd-$seed.txt 2>&1
  echo "nd $seed rc $?"
done
for k in 1 2; do
  seed=$(fresh)
  timeout 120 .lab/p128/xpose-bench --random 500 --seed $seed --kernel auto --no-peers --reps 10 --no-progress --json $R/2d-$seed.jsonl > $R/2d-$seed.txt 2>&1
  echo "2d $seed rc $?"
done
python3 bench/table.py random $R/nd-[0-9]*.jsonl $R/2d-[0-9]*.jsonl > $R/table 2>&1
python3 bench/table.py random $R/2d-[0-9]*.jsonl --min-mib 64 >> $R/table 2>&1
cat $R/table
cd $OUT && tar czf x.tgz r && rm -rf r
