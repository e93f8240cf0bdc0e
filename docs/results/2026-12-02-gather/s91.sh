#!/bin/bash
# s91: N-D random 500 x 2 fresh seeds, every kernel (d75921e: permute_gather named), for a rule
cd "$(dirname "$0")/.." ; tar xJf .lab/p91.txz -C .lab
D=$PWD/.lab/p91; R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$D
for s in 1 2; do
  timeout 280 $D/xpose-permute-bench --random 500 --every-kernel --reps 10 --no-host-time --json $R/ek-$s.jsonl > $R/ek-$s.txt 2>&1; echo "run $s rc $?" >> $R/head
  grep -E "seed|median" $R/ek-$s.txt | head -3 >> $R/head
done
cat $R/head
cd $OUT && tar czf x.tgz r && rm -rf r
