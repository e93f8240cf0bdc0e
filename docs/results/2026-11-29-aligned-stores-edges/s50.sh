#!/bin/bash
# final: aligned_stores' shifted chunks bound by src's span for 1- and 2-byte elements, u8 dst edges by store_part; row_vectors (7f70bf0); against 5ab9d66
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar xJf .lab/pbw.txz -C .lab; mkdir -p $OUT/r; P=.lab/pbw
timeout 200 $P/gpu_tests --gtest_filter='Permute*:*aligned_stores*' > $OUT/r/tests.log 2>&1; echo "tests rc $? $(grep -E '^\[  (PASSED|FAILED)' $OUT/r/tests.log | tr '\n' ' ')" > $OUT/r/table
grep -E 'Failure|seed' $OUT/r/tests.log | head -5 >> $OUT/r/table
for c in "u8 4,10,40,159,152 1,2,0,4,3 permute_aligned_stores" "fp16 5,66,13,151,10 4,3,1,0,2 permute_aligned_stores" "u8 10,100,31 1,0,2 permute_row_vectors" "u8 2,57,1003 2,1,0 permute_aligned_stores" "fp16 3,57,1001 2,1,0 permute_aligned_stores"; do
  set -- $c
  timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $P/new --dtype $1 --extents $2 --perm $3 --kernel $4 --reps 1 --warmup 0 --no-host-time --check > $OUT/r/memcheck-$1-$2.txt 2>&1
  echo "memcheck $c rc $? $(grep -E 'ERROR SUMMARY' $OUT/r/memcheck-$1-$2.txt)" >> $OUT/r/table
done
for s in u8:1001x3001 fp16:999x2001; do
  timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $P/new2d --dtype ${s%%:*} --shape ${s#*:} --kernel aligned_stores --reps 1 --check > $OUT/r/memcheck-2d-${s%%:*}.txt 2>&1; echo "memcheck 2d $s rc $? $(grep -E 'ERROR SUMMARY' $OUT/r/memcheck-2d-${s%%:*}.txt)" >> $OUT/r/table
done
S=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
for b in old new; do timeout 150 $P/$b --random 250 --seed $S --reps 5 --no-host-time --json $OUT/r/nd-$b-$S.jsonl > $OUT/r/nd-$b-$S.txt 2>&1; echo "N-D $b seed $S rc $? $(grep -E 'median' $OUT/r/nd-$b-$S.txt | tail -1)" >> $OUT/r/table; done
S=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
for b in old2d new2d; do timeout 150 $P/$b --random 200 --seed $S --kernel auto --no-peers --reps 5 --json $OUT/r/2d-$b-$S.jsonl > $OUT/r/2d-$b-$S.txt 2>&1; echo "2-D $b seed $S rc $? $(grep -E 'median' $OUT/r/2d-$b-$S.txt | tail -1)" >> $OUT/r/table; done
cat $OUT/r/table
cd $OUT && tar czf x.tgz r && rm -rf r
