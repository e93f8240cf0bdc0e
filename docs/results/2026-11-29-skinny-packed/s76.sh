#!/bin/bash
# every kernel on fresh random draws (2-D and N-D) at ce1cdfa: what the automatic choice still leaves
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar xJf .lab/pg.txz -C .lab; mkdir -p $OUT/r; P=.lab/pg; T=$OUT/r/table
K="auto aligned_stores cute_padded cute_vectorized_swizzled vec_swizzled skinny tma_pipeline tma_swizzle128 cute_tma smem_padded smem_swizzled tiny_batched"
S=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
timeout 150 $P/new --random 500 --seed $S --reps 5 --no-host-time --every-kernel --json $OUT/r/nd-every-$S.jsonl > $OUT/r/nd-every-$S.txt 2>&1; echo "N-D every seed $S rc $? $(grep -E 'median' $OUT/r/nd-every-$S.txt | tail -1)" >> $T
S=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
timeout 380 $P/new2d --random 500 --seed $S --kernel $K --no-peers --reps 5 --no-progress --json $OUT/r/2d-every-$S.jsonl > $OUT/r/2d-every-$S.txt 2>&1; echo "2-D every seed $S rc $? $(grep -E 'median' $OUT/r/2d-every-$S.txt | tail -1)" >> $T
cat $T
cd $OUT && tar czf x.tgz r && rm -rf r
