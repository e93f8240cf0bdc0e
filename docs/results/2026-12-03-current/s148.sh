#!/bin/bash
# s148 (from the repository root; issue 33): rule short_transposes on the H200 up to sides of 128 bytes (tuning
# short_transpose_side 96 -> 129; s147's fp16 64x46193 batch 44: permute_packed 81.0 against 66.2). p9 = c821d90's
# xpose-permute-bench (old), p10 = the same with the change (new); the draws it moves among 60000 of fresh seed
# 3141592653 (279: fp16 90, fp32 79, fp64 108, u8 2), 15 a type (s148-moved.txt), through tools/ab-permute.
cd "$(dirname "$0")/../../.." ; tar xJf .lab/p10.txz -C .lab
R=$OUT/r; mkdir -p $R
head -32 docs/results/2026-12-03-current/s148-moved.txt > $R/draws.txt  # what the device time left allows
OUT=$R XPOSE_AB_ROUNDS=2 timeout 170 tools/ab-permute .lab/p9/xpose-permute-bench .lab/p10/xpose-permute-bench $R/draws.txt > $R/ab.txt 2>&1; echo "ab rc $?"
tail -30 $R/ab.txt
cd $OUT && tar czf x.tgz r && rm -rf r
