#!/bin/bash
# s149 (from the repository root; issue 33): s148's rule refit: short_transposes on the H200 up to 128-byte sides
# for elements of 4 bytes or more, 2-byte ones at 96 as before (branch short-transposes-wide). p9 = c821d90's
# xpose-permute-bench (old), p11 = the branch's (new); the draws it moves among 60000 of fresh seed 1711622885
# (220: fp16 3, fp32 78, fp64 137, u8 2), 12 a type (s149-moved.txt, held out from s148's fit), tools/ab-permute.
cd "$(dirname "$0")/../../.." ; tar xJf .lab/p11.txz -C .lab
R=$OUT/r; mkdir -p $R
OUT=$R XPOSE_AB_ROUNDS=2 timeout 150 tools/ab-permute .lab/p9/xpose-permute-bench .lab/p11/xpose-permute-bench docs/results/2026-12-03-current/s149-moved.txt > $R/ab.txt 2>&1; echo "ab rc $?"
tail -30 $R/ab.txt
cd $OUT && tar czf x.tgz r && rm -rf r
