#!/bin/bash
# aligned_stores: 4- and 8-byte shifted rows as aligned vectors scattered into the tile (sc4: 4 in flight, sc2: 2) against HEAD
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar xJf .lab/pbs.txz -C .lab; mkdir -p $OUT/r; P=.lab/pbs
timeout 200 $P/gpu_tests --gtest_filter='Permute*:*aligned_stores*:*AlignedStores*' > $OUT/r/tests.log 2>&1; echo "tests rc $? $(grep -E '^\[  (PASSED|FAILED)' $OUT/r/tests.log | tr '\n' ' ')" > $OUT/r/table
grep -E 'Failure|seed' $OUT/r/tests.log | head -5 >> $OUT/r/table
for c in "fp32 2771,46,749 2,1,0" "fp64 7,76,49,44,2 1,4,3,0,2" "fp32 5,57,1001 2,1,0" "fp64 3,57,1003 2,1,0" "fp32 4,13,160,97,33 4,1,2,3,0"; do
  set -- $c
  timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $P/sc4 --dtype $1 --extents $2 --perm $3 --kernel permute_aligned_stores --reps 1 --warmup 0 --no-host-time --check > $OUT/r/memcheck-$1-$2.txt 2>&1
  echo "memcheck $c rc $? $(grep -E 'ERROR SUMMARY' $OUT/r/memcheck-$1-$2.txt)" >> $OUT/r/table
done
for s in fp32:777x1001 fp64:555x333x3 fp32:1001x3x7; do
  timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $P/sc4_2d --dtype ${s%%:*} --shape ${s#*:} --kernel aligned_stores --reps 1 --check --no-peers > $OUT/r/memcheck-2d-$s.txt 2>&1; echo "memcheck 2d $s rc $? $(grep -E 'ERROR SUMMARY' $OUT/r/memcheck-2d-$s.txt)" >> $OUT/r/table
done
for c in "fp32 8191x4097" "fp64 4095x4097" "fp32 8192x4096"; do set -- $c
  for b in new2d sc4_2d sc2_2d; do timeout 60 $P/$b --dtype $1 --shape $2 --kernel aligned_stores --reps 10 --no-peers > $OUT/r/b-$b-$1-$2.txt 2>&1; echo "$c $b $(grep -E '^  aligned_stores ' $OUT/r/b-$b-$1-$2.txt | awk '{print $5, $7}')" >> $OUT/r/table; done
done
S=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
for b in new sc4 sc2 new sc4 sc2; do timeout 150 $P/$b --random 250 --seed $S --reps 5 --no-host-time --json $OUT/r/nd-$b-$S.jsonl > $OUT/r/nd-$b-$S.txt 2>&1; echo "N-D $b seed $S rc $? $(grep -E 'median' $OUT/r/nd-$b-$S.txt | tail -1)" >> $OUT/r/table; done
S=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
for b in new2d sc4_2d sc2_2d; do timeout 150 $P/$b --random 200 --seed $S --kernel auto --no-peers --reps 5 --json $OUT/r/2d-$b-$S.jsonl > $OUT/r/2d-$b-$S.txt 2>&1; echo "2-D $b seed $S rc $? $(grep -E 'median' $OUT/r/2d-$b-$S.txt | tail -1)" >> $OUT/r/table; done
cat $OUT/r/table
cd $OUT && tar czf x.tgz r && rm -rf r
