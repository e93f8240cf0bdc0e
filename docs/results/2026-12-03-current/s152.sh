#!/bin/bash
# s152 (from the repository root; issue 33): s151's rule on 2-D transposes (xpose_transpose hands them over too):
# fp16 batched transposes whose dst rows are 96-128 bytes to permute_packed. p12 = 56c5bcd's xpose-bench (old),
# p15 = 612b4de's (new); 40 of the 285 2-D draws whose plans differ among 60000 of fresh seed 2433108804
# (s152-moved.txt, all fp16), tools/ab-permute on xpose-bench, two rounds.
cd "$(dirname "$0")/../../.." ; tar xJf .lab/p1215.txz -C .lab
R=$OUT/r; mkdir -p $R
OUT=$R XPOSE_AB_ROUNDS=2 timeout 300 tools/ab-permute .lab/p12/xpose-bench .lab/p15/xpose-bench docs/results/2026-12-03-current/s152-moved.txt > $R/ab.txt 2>&1; echo "ab rc $?"
tail -22 $R/ab.txt
cd $OUT && tar czf x.tgz r && rm -rf r
