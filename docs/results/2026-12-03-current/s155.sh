#!/bin/bash
# s155 (from the repository root; issue 33): rule short_transposes for fp16 dst rows under 129 bytes in problems of
# 32 MiB or more (417afd4) against the rules before (56c5bcd; c821d90's N-D rules are the same), on draws held out
# from s151 and s152: the ones whose plans differ among 60000 permutations of fresh seed 152139281 (31, all fp16;
# 30 in s155-nd-moved.txt, through xpose-permute-bench: p9 old, p17 new) and among 60000 2-D draws of fresh seed
# 3300465748 (161, all fp16; 30 in s155-2d-moved.txt, through xpose-bench: p12 old, p17 new), tools/ab-permute.
cd "$(dirname "$0")/../../.." ; tar xJf .lab/p17.txz -C .lab
R=$OUT/r; mkdir -p $R/nd $R/2d
OUT=$R/nd XPOSE_AB_ROUNDS=2 timeout 120 tools/ab-permute .lab/p9/xpose-permute-bench .lab/p17/xpose-permute-bench docs/results/2026-12-03-current/s155-nd-moved.txt > $R/nd/ab.txt 2>&1; echo "nd ab rc $?"
OUT=$R/2d XPOSE_AB_ROUNDS=2 timeout 150 tools/ab-permute .lab/p12/xpose-bench .lab/p17/xpose-bench docs/results/2026-12-03-current/s155-2d-moved.txt > $R/2d/ab.txt 2>&1; echo "2d ab rc $?"
for k in nd 2d; do echo "== $k"; sed -n '/^| build/,/^$/p' $R/$k/ab.txt; grep -E '^\| all' $R/$k/ab.txt; done
cd $OUT && tar czf x.tgz r && rm -rf r
