#!/bin/bash
# s151 (from the repository root; issue 33): s148's refit by direction: 2-byte elements go to permute_packed where
# dst's run is under 129 bytes (s148's three gains: dst runs of 100-122 bytes) and src's under 96 as before (its five
# losses: src runs of 102-128 bytes; branch short-transposes-dir). p11 = branch short-transposes-wide's
# xpose-permute-bench (old), p14 = the direction's (new); the draws whose plans differ among 60000 of fresh seed
# 3328554674 (52, all fp16), 30 of them (s151-moved.txt), tools/ab-permute.
cd "$(dirname "$0")/../../.." ; tar xJf .lab/p1114.txz -C .lab
R=$OUT/r; mkdir -p $R
OUT=$R XPOSE_AB_ROUNDS=2 timeout 120 tools/ab-permute .lab/p11/xpose-permute-bench .lab/p14/xpose-permute-bench docs/results/2026-12-03-current/s151-moved.txt > $R/ab.txt 2>&1; echo "ab rc $?"
tail -22 $R/ab.txt
cd $OUT && tar czf x.tgz r && rm -rf r
