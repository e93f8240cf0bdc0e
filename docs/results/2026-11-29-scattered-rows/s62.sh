#!/bin/bash
# final at 103ae1c: the GPU suite, memcheck on the scattered path, random N-D and 2-D (500 draws, fresh seeds) against 2cce5fe (old)
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar xJf .lab/pbf.txz -C .lab; mkdir -p $OUT/r; P=.lab/pbf
timeout 300 $P/gpu_tests --gtest_brief=1 > $OUT/r/tests.log 2>&1; echo "gpu suite rc $? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' $OUT/r/tests.log | tr '\n' ' ')" > $OUT/r/table
grep -E 'Failure|seed' $OUT/r/tests.log | head -5 >> $OUT/r/table
for c in "fp32 2771,46,749 2,1,0" "fp64 3,57,1003 2,1,0"; do set -- $c
  timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $P/new --dtype $1 --extents $2 --perm $3 --kernel permute_aligned_stores --reps 1 --warmup 0 --no-host-time --check > $OUT/r/memcheck-$1-$2.txt 2>&1
  echo "memcheck $c rc $? $(grep -E 'ERROR SUMMARY' $OUT/r/memcheck-$1-$2.txt)" >> $OUT/r/table
done
timeout 60 compute-sanitizer --tool racecheck --error-exitcode 9 $P/new2d --dtype fp32 --shape 777x1001 --kernel aligned_stores --reps 1 --check --no-peers > $OUT/r/racecheck-2d.txt 2>&1; echo "racecheck 2d fp32 777x1001 rc $? $(grep -E 'RACECHECK SUMMARY' $OUT/r/racecheck-2d.txt)" >> $OUT/r/table
S=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
for b in old new; do timeout 200 $P/$b --random 500 --seed $S --reps 5 --no-host-time --json $OUT/r/nd-$b-$S.jsonl > $OUT/r/nd-$b-$S.txt 2>&1; echo "N-D $b seed $S rc $? $(grep -E 'median' $OUT/r/nd-$b-$S.txt | tail -1)" >> $OUT/r/table; done
S=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
for b in old2d new2d; do timeout 200 $P/$b --random 500 --seed $S --kernel auto --no-peers --reps 5 --json $OUT/r/2d-$b-$S.jsonl > $OUT/r/2d-$b-$S.txt 2>&1; echo "2-D $b seed $S rc $? $(grep -E 'median' $OUT/r/2d-$b-$S.txt | tail -1)" >> $OUT/r/table; done
cat $OUT/r/table
cd $OUT && tar czf x.tgz r && rm -rf r
