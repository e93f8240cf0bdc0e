#!/bin/bash
# one shift helper (layout::shift_out_chunk, two-level selects) for every kernel (sh) against c386468 (new)
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar xJf .lab/pbu2.txz -C .lab; mkdir -p $OUT/r; P=.lab/pbu2
timeout 300 $P/gpu_tests --gtest_brief=1 --gtest_filter='Permute*:Inplace*:AllKernels*' > $OUT/r/tests.log 2>&1; echo "tests rc $? $(grep -E '^\[  (PASSED|FAILED)' $OUT/r/tests.log | tr '\n' ' ')" > $OUT/r/table
grep -E 'Failure|seed' $OUT/r/tests.log | head -5 >> $OUT/r/table
for c in "u8 4097x4099" "fp16 3001x2999" "u8 30011x2053" "fp32 7x1000003"; do set -- $c
  for b in new2d sh2d; do timeout 90 $P/$b --inplace --dtype $1 --shape $2 --reps 5 --check --no-progress > $OUT/r/ip-$b-$1-$2.txt 2>&1; echo "inplace $c $b $(grep -E 'inplace|%' $OUT/r/ip-$b-$1-$2.txt | grep -v '^#' | tail -1 | cut -c1-110)" >> $OUT/r/table; done
done
for c in "fp16 100003x7" "u8 7x1000003" "fp16 8191x8193" "u8 16383x8193"; do set -- $c
  for b in new2d sh2d; do timeout 60 $P/$b --dtype $1 --shape $2 --kernel auto --reps 10 --no-peers > $OUT/r/b-$b-$1-$2.txt 2>&1; echo "$c $b $(grep -E '^  auto ' $OUT/r/b-$b-$1-$2.txt | awk '{print $5, $7}')" >> $OUT/r/table; done
done
S=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
for b in new sh new sh; do timeout 150 $P/$b --random 250 --seed $S --reps 5 --no-host-time --json $OUT/r/nd-$b-$S.jsonl > $OUT/r/nd-$b-$S.txt 2>&1; echo "N-D $b seed $S rc $? $(grep -E 'median' $OUT/r/nd-$b-$S.txt | tail -1)" >> $OUT/r/table; done
S=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
for b in new2d sh2d; do timeout 150 $P/$b --random 250 --seed $S --kernel auto --no-peers --reps 5 --json $OUT/r/2d-$b-$S.jsonl > $OUT/r/2d-$b-$S.txt 2>&1; echo "2-D $b seed $S rc $? $(grep -E 'median' $OUT/r/2d-$b-$S.txt | tail -1)" >> $OUT/r/table; done
cat $OUT/r/table
cd $OUT && tar czf x.tgz r && rm -rf r
