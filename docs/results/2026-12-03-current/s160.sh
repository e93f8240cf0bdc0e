#!/bin/bash
# s160 (from the repository root; issue 33; not yet run, a fit): u8 batched transposes whose src rows are under 48
# bytes, which rule short_transposes hands to permute_packed (s153: u8 557x2136x47 (0,2,1) 49.6% there against
# aligned_stores' 70.5): 40 of the 205 such draws among 60000 permutations of seed 3328554674 (s160-u8src.txt),
# each through the choice (permute_packed) and the transpose table's tile kernels. Build: tools/prebuild at the
# commit that runs it, xpose-permute-bench stripped into .lab/p20/, `tar cJf .lab/p20.txz -C .lab p20`.
cd "$(dirname "$0")/../../.." ; tar xJf .lab/p20.txz -C .lab
R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
start=$SECONDS
while read -r dtype extents perm; do
  [ $((SECONDS - start)) -lt 200 ] || { echo "s160: out of time at $dtype $extents"; break; }
  timeout 20 .lab/p20/xpose-permute-bench --dtype $dtype --extents $extents --perm $perm --kernel auto permute_packed \
    aligned_stores cute_padded smem_padded --reps 10 --rounds 2 --no-host-time --json $R/u8src.jsonl >> $R/u8src.txt 2>&1
done < docs/results/2026-12-03-current/s160-u8src.txt
echo "s160: $(wc -l < $R/u8src.jsonl) records in $((SECONDS - start)) s"
cd $OUT && tar czf x.tgz r && rm -rf r
