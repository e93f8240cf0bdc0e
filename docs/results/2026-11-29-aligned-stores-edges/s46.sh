#!/bin/bash
# aligned_stores: shifted src chunks bound by src's span (not the row), edge dst vectors of 1-2 byte elements by store_part; with 7f70bf0's row_vectors
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar xJf .lab/pbt.txz -C .lab; mkdir -p $OUT/r; P=.lab/pbt
timeout 200 $P/gpu_tests --gtest_filter='Permute*:*aligned_stores*' > $OUT/r/tests.log 2>&1; echo "tests rc $? $(grep -E '^\[  (PASSED|FAILED)' $OUT/r/tests.log | tr '\n' ' ')" > $OUT/r/table
grep -E 'Failure|seed' $OUT/r/tests.log | head -5 >> $OUT/r/table
for c in "u8 4,10,40,159,152 1,2,0,4,3 permute_aligned_stores" "fp16 5,66,13,151,10 4,3,1,0,2 permute_aligned_stores" "u8 10,100,31 1,0,2 permute_row_vectors" "u8 2,57,1003 2,1,0 permute_aligned_stores"; do
  set -- $c
  timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $P/new --dtype $1 --extents $2 --perm $3 --kernel $4 --reps 1 --warmup 0 --no-host-time --check > $OUT/r/memcheck-$1-$2.txt 2>&1
  echo "memcheck $c rc $? $(grep -E 'ERROR SUMMARY' $OUT/r/memcheck-$1-$2.txt)" >> $OUT/r/table
done
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $P/new2d --dtype u8 --shape 1001x3001 --kernel aligned_stores --reps 1 --check > $OUT/r/memcheck-2d.txt 2>&1; echo "memcheck 2d u8 1001x3001 rc $? $(grep -E 'ERROR SUMMARY' $OUT/r/memcheck-2d.txt)" >> $OUT/r/table
echo "contiguous_sides draws, permute_aligned_stores: old | new (% copy, check)" >> $OUT/r/table
for c in "u8 4,40,40,159,152 1,2,0,4,3" "u8 1063,2,85,33,5 3,0,4,1,2" "fp16 5,66,13,1517,10 4,3,1,0,2" "u8 5,501,709,75 3,1,2,0" "u8 11,1109,150,193 1,3,0,2" "fp16 142,3253,39 2,1,0" "u8 205,270,1763 2,1,0" "u8 3019,60,549 2,1,0" "fp16 44,40,2280,34 1,3,0,2" "fp32 7,171,3550 2,1,0" "fp32 266,362,6,3,57 2,4,3,0,1" "fp16 516,297,40,2 2,1,3,0" "u8 2612,18,3679 2,1,0" "fp64 203,1637,26 2,1,0"; do
  set -- $c; line="$1 $2 ($3)"
  for b in old new; do
    timeout 60 $P/$b --dtype $1 --extents $2 --perm $3 --reps 10 --no-host-time --check --kernel permute_aligned_stores > $OUT/r/$b-$1-$2.txt 2>&1
    line="$line | $(grep -E '^  permute_' $OUT/r/$b-$1-$2.txt | awk '{printf "%s %s ", $6, $NF}')"
  done
  echo "$line" >> $OUT/r/table
done
S=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
for b in old new; do timeout 150 $P/$b --random 250 --seed $S --reps 5 --no-host-time --json $OUT/r/nd-$b-$S.jsonl > $OUT/r/nd-$b-$S.txt 2>&1; echo "N-D $b seed $S rc $? $(grep -E 'median' $OUT/r/nd-$b-$S.txt | tail -1)" >> $OUT/r/table; done
S=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
for b in old2d new2d; do timeout 150 $P/$b --random 200 --seed $S --kernel auto --no-peers --reps 5 --json $OUT/r/2d-$b-$S.jsonl > $OUT/r/2d-$b-$S.txt 2>&1; echo "2-D $b seed $S rc $? $(grep -E 'median' $OUT/r/2d-$b-$S.txt | tail -2 | tr '\n' ' ')" >> $OUT/r/table; done
cat $OUT/r/table
cd $OUT && tar czf x.tgz r && rm -rf r
