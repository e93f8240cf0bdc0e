#!/bin/bash
# aligned_stores: 2-byte shifted rows scattered too (h2) against 1e6b899 (new)
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar xJf .lab/pbh.txz -C .lab; mkdir -p $OUT/r; P=.lab/pbh
timeout 200 $P/gpu_tests --gtest_filter='Permute*:*aligned_stores*:*AlignedStores*' > $OUT/r/tests.log 2>&1; echo "tests rc $? $(grep -E '^\[  (PASSED|FAILED)' $OUT/r/tests.log | tr '\n' ' ')" > $OUT/r/table
grep -E 'Failure|seed' $OUT/r/tests.log | head -5 >> $OUT/r/table
for c in "fp16 422,565,833 2,1,0" "fp16 3,57,1001 2,1,0" "fp16 9,39,3451,39 3,2,1,0" "fp16 5,66,13,151,10 4,3,1,0,2"; do
  set -- $c
  timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $P/h2 --dtype $1 --extents $2 --perm $3 --kernel permute_aligned_stores --reps 1 --warmup 0 --no-host-time --check > $OUT/r/memcheck-$1-$2.txt 2>&1
  echo "memcheck $c rc $? $(grep -E 'ERROR SUMMARY' $OUT/r/memcheck-$1-$2.txt)" >> $OUT/r/table
done
for s in fp16:999x2001 fp16:1001x3x7 fp16:33x4097; do
  timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $P/h2_2d --dtype ${s%%:*} --shape ${s#*:} --kernel aligned_stores --reps 1 --check --no-peers > $OUT/r/memcheck-2d-$s.txt 2>&1; echo "memcheck 2d $s rc $? $(grep -E 'ERROR SUMMARY' $OUT/r/memcheck-2d-$s.txt)" >> $OUT/r/table
done
for c in "fp16 8191x8193" "fp16 8192x8192" "fp16 12345x6789"; do set -- $c
  for b in new2d h2_2d; do timeout 60 $P/$b --dtype $1 --shape $2 --kernel aligned_stores --reps 10 --no-peers > $OUT/r/b-$b-$1-$2.txt 2>&1; echo "$c $b $(grep -E '^  aligned_stores ' $OUT/r/b-$b-$1-$2.txt | awk '{print $5, $7}')" >> $OUT/r/table; done
done
S=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
for b in new h2 new h2; do timeout 150 $P/$b --random 250 --seed $S --reps 5 --no-host-time --json $OUT/r/nd-$b-$S.jsonl > $OUT/r/nd-$b-$S.txt 2>&1; echo "N-D $b seed $S rc $? $(grep -E 'median' $OUT/r/nd-$b-$S.txt | tail -1)" >> $OUT/r/table; done
S=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
for b in new2d h2_2d; do timeout 150 $P/$b --random 200 --seed $S --kernel auto --no-peers --reps 5 --json $OUT/r/2d-$b-$S.jsonl > $OUT/r/2d-$b-$S.txt 2>&1; echo "2-D $b seed $S rc $? $(grep -E 'median' $OUT/r/2d-$b-$S.txt | tail -1)" >> $OUT/r/table; done
cat $OUT/r/table
cd $OUT && tar czf x.tgz r && rm -rf r
