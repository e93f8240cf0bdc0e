#!/bin/bash
# s174 (from the repository root; issue 33; held out, seed in s174-2d-moved.txt's draws: 730047516): short sides
# that the 2-D table gives the vector tiles (vec_swizzled, cute_vectorized_swizzled) handed over to rule
# short_transposes too (p31) against b440fc6's rules (p29): the 66 of 60000 draws the change moves.
cd "$(dirname "$0")/../../.." ; tar xJf .lab/q.txz -C .lab
R=$OUT/r; mkdir -p $R
OUT=$R XPOSE_AB_ROUNDS=2 tools/ab-permute .lab/p29/xpose-bench .lab/p31/xpose-bench docs/results/2026-12-03-current/s174-2d-moved.txt > $R/table.txt 2>&1
head -12 $R/table.txt; grep -E '^ *[-+][0-9]' $R/table.txt | sort -n | head -8
cd $OUT && tar czf x.tgz r && rm -rf r
