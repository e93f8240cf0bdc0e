#!/bin/bash
# s150 (from the repository root; issue 33; not yet run): rule unaligned_large only where src rows are longer than
# stores_min_rows_bytes too (branch short-src-rows: aligned_stores' 64-column tiles half empty below; s147's fp32
# 29549x32 batch 26 ld 86/29603 ran 58.5% through it, smem_padded 63.3, cute_padded 70.4). Before running:
# tools/prebuild at 3400d20 (old) and at the branch (new), each xpose-bench stripped into .lab/p12/ and .lab/p13/,
# `tar cJf .lab/p1213.txz -C .lab p12 p13`. Draws: the 2-D draws the branch moves among 60000 of fresh seed
# 3852448098 (361: fp16 242, fp32 119), 15 a type (s150-moved.txt), through tools/ab-permute.
cd "$(dirname "$0")/../../.." ; tar xJf .lab/p1213.txz -C .lab
R=$OUT/r; mkdir -p $R
OUT=$R XPOSE_AB_ROUNDS=2 timeout 300 tools/ab-permute .lab/p12/xpose-bench .lab/p13/xpose-bench docs/results/2026-12-03-current/s150-moved.txt > $R/ab.txt 2>&1; echo "ab rc $?"
tail -30 $R/ab.txt
cd $OUT && tar czf x.tgz r && rm -rf r
