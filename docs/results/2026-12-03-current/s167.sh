#!/bin/bash
# s167 (from the repository root; issue 33; held out): rule pitch_16_mod_32 no longer gives aligned_stores 8-byte
# matrices of fewer than 32 rows or 64 columns (the bound unaligned_large already had; fitted on s161) against
# 9ca9154's choice (old = 33abd16's benches, the same rules): the draws it moves among 60000 permutations and
# 60000 2-D problems of a fresh seed, 3154018528 (s167-nd-moved.txt: 43 of 151; s167-2d-moved.txt: 40 of 44), each
# through both builds' automatic choice (tools/ab-permute).
cd "$(dirname "$0")/../../.." ; tar xJf .lab/ab2.txz -C .lab
R=$OUT/r; mkdir -p $R/nd $R/2d
D=docs/results/2026-12-03-current
OUT=$R/nd XPOSE_AB_ROUNDS=2 tools/ab-permute .lab/ab2/old/xpose-permute-bench .lab/ab2/new/xpose-permute-bench $D/s167-nd-moved.txt > $R/nd/table.txt 2>&1
tail -4 $R/nd/table.txt
OUT=$R/2d XPOSE_AB_ROUNDS=2 tools/ab-permute .lab/ab2/old/xpose-bench .lab/ab2/new/xpose-bench $D/s167-2d-moved.txt > $R/2d/table.txt 2>&1
tail -4 $R/2d/table.txt
cd $OUT && tar czf x.tgz r && rm -rf r
