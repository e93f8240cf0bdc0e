#!/bin/bash
# s161 (from the repository root; issue 33; not yet run, a fit): 8- and 16-byte batched transposes with a side
# under 256 bytes that the transpose table gives aligned_stores (rules pitch_16_mod_32, unaligned_large): s153 had
# cute_padded ahead there (fp64 410x30x1072 (0,2,1) 103.2% against 92.4; 59x21x62x31 (0,3,1,2) 89.8 against
# 71.3), as s147 had for c128 8x43768 batch 16. 40 of the 104 such draws among 60000 permutations of seed
# 3328554674 (s161-wide.txt), each through the choice and the table's tile kernels and permute_packed.
# Build: as s160 (.lab/p20.txz).
cd "$(dirname "$0")/../../.." ; tar xJf .lab/p20.txz -C .lab
R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
start=$SECONDS
while read -r dtype extents perm; do
  [ $((SECONDS - start)) -lt 200 ] || { echo "s161: out of time at $dtype $extents"; break; }
  timeout 20 .lab/p20/xpose-permute-bench --dtype $dtype --extents $extents --perm $perm --kernel auto permute_packed \
    aligned_stores cute_padded smem_padded --reps 10 --rounds 2 --no-host-time --json $R/wide.jsonl >> $R/wide.txt 2>&1
done < docs/results/2026-12-03-current/s161-wide.txt
echo "s161: $(wc -l < $R/wide.jsonl) records in $((SECONDS - start)) s"
cd $OUT && tar czf x.tgz r && rm -rf r
