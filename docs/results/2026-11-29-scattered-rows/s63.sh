#!/bin/bash
# shifted vector loads as global loads (__ldca) in aligned_stores and skinny instead of generic LD.E.128 (gl) against 2bef026 (new)
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar xJf .lab/pbg.txz -C .lab; mkdir -p $OUT/r; P=.lab/pbg
timeout 200 $P/gpu_tests --gtest_filter='Permute*:*aligned_stores*:*AlignedStores*:*skinny*:*Skinny*' > $OUT/r/tests.log 2>&1; echo "tests rc $? $(grep -E '^\[  (PASSED|FAILED)' $OUT/r/tests.log | tr '\n' ' ')" > $OUT/r/table
grep -E 'Failure|seed' $OUT/r/tests.log | head -5 >> $OUT/r/table
for c in "fp16 8191x8193" "u8 16383x8193" "u8 30011x29989" "fp16 100003x7" "u8 7x1000003" "fp32 3x5000011"; do set -- $c
  for b in new2d gl2d; do timeout 60 $P/$b --dtype $1 --shape $2 --kernel auto --reps 10 --no-peers > $OUT/r/b-$b-$1-$2.txt 2>&1; echo "$c $b $(grep -E '^  auto ' $OUT/r/b-$b-$1-$2.txt | awk '{print $5, $7, $NF}')" >> $OUT/r/table; done
done
for c in "fp16 422,565,833 2,1,0" "u8 1436,40,3998 2,1,0" "fp16 2,1358,3449 1,2,0"; do set -- $c
  for b in new gl; do timeout 60 $P/$b --dtype $1 --extents $2 --perm $3 --kernel auto --reps 10 --no-host-time > $OUT/r/c-$b-$1-$2.txt 2>&1; echo "$c $b $(grep -E '^  auto ' $OUT/r/c-$b-$1-$2.txt | awk '{print $5, $NF}')" >> $OUT/r/table; done
done
S=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
for b in new gl new gl; do timeout 150 $P/$b --random 250 --seed $S --reps 5 --no-host-time --json $OUT/r/nd-$b-$S.jsonl > $OUT/r/nd-$b-$S.txt 2>&1; echo "N-D $b seed $S rc $? $(grep -E 'median' $OUT/r/nd-$b-$S.txt | tail -1)" >> $OUT/r/table; done
S=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
for b in new2d gl2d; do timeout 150 $P/$b --random 250 --seed $S --kernel auto --no-peers --reps 5 --json $OUT/r/2d-$b-$S.jsonl > $OUT/r/2d-$b-$S.txt 2>&1; echo "2-D $b seed $S rc $? $(grep -E 'median' $OUT/r/2d-$b-$S.txt | tail -1)" >> $OUT/r/table; done
cat $OUT/r/table
cd $OUT && tar czf x.tgz r && rm -rf r
