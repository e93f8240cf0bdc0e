#!/bin/bash
# permute_packed by chunks for 1- and 2-byte elements: 3 blocks an SM (b3, 80 registers, spills) and also 8 elements a thread (b3pt8) against 1e6b899 (new: 2 blocks, 16 a thread, 127 registers)
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar xJf .lab/pbp.txz -C .lab; mkdir -p $OUT/r; P=.lab/pbp
timeout 200 $P/gpu_tests --gtest_filter='Permute*' > $OUT/r/tests.log 2>&1; echo "tests (b3pt8) rc $? $(grep -E '^\[  (PASSED|FAILED)' $OUT/r/tests.log | tr '\n' ' ')" > $OUT/r/table
for c in "u8 3535,1000,32 2,0,1" "fp16 2130,65,217,2,2 0,4,3,2,1" "fp16 930,3049,39 0,2,1" "u8 1419,12,6,1662 2,0,3,1" "fp16 789,22,824,15 2,0,3,1"; do set -- $c
  for b in new b3 b3pt8; do timeout 60 $P/$b --dtype $1 --extents $2 --perm $3 --kernel auto --reps 10 --no-host-time --check > $OUT/r/c-$b-$1-$2.txt 2>&1; echo "$c $b $(grep -E '^  auto ' $OUT/r/c-$b-$1-$2.txt | awk '{print $5, $NF}')" >> $OUT/r/table; done
done
S=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
for b in new b3 b3pt8 new b3 b3pt8; do timeout 150 $P/$b --random 250 --seed $S --reps 5 --no-host-time --json $OUT/r/nd-$b-$S.jsonl > $OUT/r/nd-$b-$S.txt 2>&1; echo "N-D $b seed $S rc $? $(grep -E 'median' $OUT/r/nd-$b-$S.txt | tail -1)" >> $OUT/r/table; done
cat $OUT/r/table
cd $OUT && tar czf x.tgz r && rm -rf r
