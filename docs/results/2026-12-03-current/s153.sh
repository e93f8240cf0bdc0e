#!/bin/bash
# s153 (from the repository root; issue 33): rule short_transposes' sides by direction, for a fit (not a held-out
# check). 88 batched transposes among 60000 permutations of seed 3328554674 (s153-sides.txt: 4 a group of element
# size, the short side's direction (src's run or dst's) and its bytes, 24-63, 64-127, 128-255, among those the
# transpose table gives aligned_stores, cute_padded, smem_padded or smem_swizzled or rule short_transposes takes),
# each timed through the automatic choice, permute_packed and the table's tile kernels (p17 = 417afd4).
cd "$(dirname "$0")/../../.." ; tar xJf .lab/p17.txz -C .lab
R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
start=$SECONDS
while read -r dtype extents perm; do
  [ $((SECONDS - start)) -lt 280 ] || { echo "s153: out of time at $dtype $extents"; break; }
  timeout 20 .lab/p17/xpose-permute-bench --dtype $dtype --extents $extents --perm $perm --kernel auto permute_packed \
    aligned_stores cute_padded smem_padded --reps 10 --rounds 2 --no-host-time --json $R/sides.jsonl >> $R/sides.txt 2>&1
done < docs/results/2026-12-03-current/s153-sides.txt
echo "s153: $(wc -l < $R/sides.jsonl) records in $((SECONDS - start)) s"
cd $OUT && tar czf x.tgz r && rm -rf r
