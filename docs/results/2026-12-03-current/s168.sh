#!/bin/bash
# s168 (from the repository root; issue 33; held out): rule pitch_16_mod_32's 8-byte elements refit on s167 (src
# rows 16-byte aligned: more than 256 bytes; off 16 bytes: at least 32 rows and 64 columns) against 9ca9154's
# choice (old = 33abd16's benches, the same rules): the draws it moves among 60000 permutations and 60000 2-D
# problems of a fresh seed, 2669298444 (s168-nd-moved.txt: 47 of 128; s168-2d-moved.txt: 39 of 39), each through both
# builds' automatic choice (tools/ab-permute).
cd "$(dirname "$0")/../../.." ; tar xJf .lab/ab3.txz -C .lab
R=$OUT/r; mkdir -p $R/nd $R/2d
D=docs/results/2026-12-03-current
OUT=$R/nd XPOSE_AB_ROUNDS=2 tools/ab-permute .lab/ab3/old/xpose-permute-bench .lab/ab3/new/xpose-permute-bench $D/s168-nd-moved.txt > $R/nd/table.txt 2>&1
tail -4 $R/nd/table.txt
OUT=$R/2d XPOSE_AB_ROUNDS=2 tools/ab-permute .lab/ab3/old/xpose-bench .lab/ab3/new/xpose-bench $D/s168-2d-moved.txt > $R/2d/table.txt 2>&1
tail -4 $R/2d/table.txt
cd $OUT && tar czf x.tgz r && rm -rf r
