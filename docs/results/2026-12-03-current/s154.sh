#!/bin/bash
# s154 (from the repository root; issue 34): FP8 quantization on random problems (xpose-quantize-bench --random,
# a6a42c4: fp32/bf16/fp16, every recipe and output set, tokens 1-65536 and width 256-65536 half multiples of 128,
# x of 32 MiB-1 GiB), fresh seeds: 24 draws checked bit for bit against the CPU path, then 200 draws timed.
cd "$(dirname "$0")/../../.." ; tar xJf .lab/p16.txz -C .lab
R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
fresh() { od -An -N4 -tu4 /dev/urandom | tr -d ' '; }
seed=$(fresh)
timeout 200 .lab/p16/xpose-quantize-bench --random 24 --seed $seed --check --reps 3 --warmup 1 > $R/check-$seed.txt 2>&1
echo "check $seed rc $?: $(grep -c passed $R/check-$seed.txt) passed, $(grep -c FAILED $R/check-$seed.txt) failed"
seed=$(fresh)
timeout 330 .lab/p16/xpose-quantize-bench --random 200 --seed $seed --reps 10 --json $R/random-$seed.jsonl > $R/random-$seed.txt 2>&1
echo "random $seed rc $?"
tail -8 $R/random-$seed.txt
cd $OUT && tar czf x.tgz r && rm -rf r
