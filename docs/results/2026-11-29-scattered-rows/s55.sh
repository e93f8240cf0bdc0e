#!/bin/bash
# aligned_stores shifted staging through cp.async raw rows (one trip a block) against HEAD
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar xJf .lab/pbz.txz -C .lab; mkdir -p $OUT/r; P=.lab/pbz
timeout 200 $P/gpu_tests --gtest_filter='Permute*:*aligned_stores*:*AlignedStores*' > $OUT/r/tests.log 2>&1; echo "tests rc $? $(grep -E '^\[  (PASSED|FAILED)' $OUT/r/tests.log | tr '\n' ' ')" > $OUT/r/table
grep -E 'Failure|seed' $OUT/r/tests.log | head -5 >> $OUT/r/table
for c in "u8 84,161,81,39,6 0,4,2,3,1" "fp16 422,565,833 2,1,0" "fp32 2771,46,749 2,1,0" "fp64 7,76,49,44,2 1,4,3,0,2" "u8 2,57,1003 2,1,0" "fp16 3,57,1001 2,1,0"; do
  set -- $c
  timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $P/raw --dtype $1 --extents $2 --perm $3 --kernel permute_aligned_stores --reps 1 --warmup 0 --no-host-time --check > $OUT/r/memcheck-$1-$2.txt 2>&1
  echo "memcheck $c rc $? $(grep -E 'ERROR SUMMARY' $OUT/r/memcheck-$1-$2.txt) $(grep -c ' ok' $OUT/r/memcheck-$1-$2.txt)" >> $OUT/r/table
done
for s in u8:1001x3001 fp16:999x2001 fp32:777x1001 fp64:555x333x3; do
  timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $P/raw2d --dtype ${s%%:*} --shape ${s#*:} --kernel aligned_stores --reps 1 --check --no-peers > $OUT/r/memcheck-2d-${s%%:*}.txt 2>&1; echo "memcheck 2d $s rc $? $(grep -E 'ERROR SUMMARY' $OUT/r/memcheck-2d-${s%%:*}.txt)" >> $OUT/r/table
done
timeout 60 compute-sanitizer --tool racecheck --error-exitcode 9 $P/raw --dtype fp16 --extents 3,57,1001 --perm 2,1,0 --kernel permute_aligned_stores --reps 1 --warmup 0 --no-host-time --check > $OUT/r/racecheck.txt 2>&1; echo "racecheck rc $? $(grep -E 'RACECHECK SUMMARY' $OUT/r/racecheck.txt)" >> $OUT/r/table
S=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
for b in new raw new raw; do timeout 150 $P/$b --random 250 --seed $S --reps 5 --no-host-time --json $OUT/r/nd-$b-$S.jsonl > $OUT/r/nd-$b-$S.txt 2>&1; echo "N-D $b seed $S rc $? $(grep -E 'median' $OUT/r/nd-$b-$S.txt | tail -1)" >> $OUT/r/table; done
S=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
for b in new2d raw2d; do timeout 150 $P/$b --random 200 --seed $S --kernel auto --no-peers --reps 5 --json $OUT/r/2d-$b-$S.jsonl > $OUT/r/2d-$b-$S.txt 2>&1; echo "2-D $b seed $S rc $? $(grep -E 'median' $OUT/r/2d-$b-$S.txt | tail -1)" >> $OUT/r/table; done
cat $OUT/r/table
cd $OUT && tar czf x.tgz r && rm -rf r
