#!/bin/bash
# aligned_stores fp16 shifted rows: two chunks of one row a thread, three vectors (t2: two rows in flight, t1: one) against c386468 (new)
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar xJf .lab/pbt.txz -C .lab; mkdir -p $OUT/r; P=.lab/pbt
timeout 200 $P/gpu_tests --gtest_filter='Permute*:*aligned_stores*:*AlignedStores*' > $OUT/r/tests.log 2>&1; echo "tests (t2) rc $? $(grep -E '^\[  (PASSED|FAILED)' $OUT/r/tests.log | tr '\n' ' ')" > $OUT/r/table
grep -E 'Failure|seed' $OUT/r/tests.log | head -5 >> $OUT/r/table
for b in t1 t2; do
for c in "fp16 3,57,1001 2,1,0" "fp16 5,66,13,151,10 4,3,1,0,2"; do set -- $c
  timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $P/$b --dtype $1 --extents $2 --perm $3 --kernel permute_aligned_stores --reps 1 --warmup 0 --no-host-time --check > $OUT/r/memcheck-$b-$1-$2.txt 2>&1
  echo "memcheck $b $c rc $? $(grep -E 'ERROR SUMMARY' $OUT/r/memcheck-$b-$1-$2.txt) $(grep -cE 'passed' $OUT/r/memcheck-$b-$1-$2.txt)" >> $OUT/r/table
done
for s in fp16:999x2001 fp16:33x4097x3; do
  timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $P/${b}_2d --dtype ${s%%:*} --shape ${s#*:} --kernel aligned_stores --reps 1 --check --no-peers > $OUT/r/memcheck-2d-$b-$s.txt 2>&1; echo "memcheck 2d $b $s rc $? $(grep -E 'ERROR SUMMARY' $OUT/r/memcheck-2d-$b-$s.txt)" >> $OUT/r/table
done
done
for c in "fp16 8191x8193" "fp16 12345x6789" "fp16 16383x16383"; do set -- $c
  for b in new2d t1_2d t2_2d; do timeout 60 $P/$b --dtype $1 --shape $2 --kernel aligned_stores --reps 10 --no-peers > $OUT/r/b-$b-$1-$2.txt 2>&1; echo "$c $b $(grep -E '^  aligned_stores ' $OUT/r/b-$b-$1-$2.txt | awk '{print $5, $7}')" >> $OUT/r/table; done
done
for c in "fp16 422,565,833 2,1,0" "fp16 9,39,3451,39 3,2,1,0"; do set -- $c
  for b in new t1 t2; do timeout 60 $P/$b --dtype $1 --extents $2 --perm $3 --kernel auto --reps 10 --no-host-time --check > $OUT/r/c-$b-$1-$2.txt 2>&1; echo "$c $b $(grep -E '^  auto ' $OUT/r/c-$b-$1-$2.txt | awk '{print $5, $6, $NF}')" >> $OUT/r/table; done
done
S=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
for b in new t1 t2 new t1 t2; do timeout 150 $P/$b --random 250 --seed $S --reps 5 --no-host-time --json $OUT/r/nd-$b-$S.jsonl > $OUT/r/nd-$b-$S.txt 2>&1; echo "N-D $b seed $S rc $? $(grep -E 'median' $OUT/r/nd-$b-$S.txt | tail -1)" >> $OUT/r/table; done
S=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
for b in new2d t1_2d t2_2d; do timeout 150 $P/$b --random 250 --seed $S --kernel auto --no-peers --reps 5 --json $OUT/r/2d-$b-$S.jsonl > $OUT/r/2d-$b-$S.txt 2>&1; echo "2-D $b seed $S rc $? $(grep -E 'median' $OUT/r/2d-$b-$S.txt | tail -1)" >> $OUT/r/table; done
cat $OUT/r/table
cd $OUT && tar czf x.tgz r && rm -rf r
