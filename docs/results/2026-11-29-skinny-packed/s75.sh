#!/bin/bash
# quantize_staged for 2-byte inputs: persistent, two tiles staged (new) vs one tile a block (old)
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar xJf .lab/pf.txz -C .lab; mkdir -p $OUT/r; P=.lab/pf; T=$OUT/r/table
timeout 120 $P/tests_new --gtest_brief=1 --gtest_filter='Quantize*' > $OUT/r/tests.log 2>&1; echo "tests rc $? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' $OUT/r/tests.log | tr '\n' ' ')" >> $T
grep -E 'Failure|FAILED' $OUT/r/tests.log | head -5 >> $T
timeout 100 $P/qnew --check --shape 4096x4096 --input bf16 fp16 fp32 --reps 2 --warmup 0 > $OUT/r/check.txt 2>&1; echo "check 4096^2 rc $? $(grep -ciE 'mismatch|wrong|fail' $OUT/r/check.txt) bad lines" >> $T
timeout 100 $P/qnew --check --shape 3001x2999 --input bf16 fp16 --reps 2 --warmup 0 > $OUT/r/check2.txt 2>&1; echo "check 3001x2999 rc $? $(grep -ciE 'mismatch|wrong|fail' $OUT/r/check2.txt) bad lines" >> $T
for t in memcheck racecheck; do for c in "mxfp8 bf16" "1x128 fp16" "128x128 bf16" "delayed bf16"; do set -- $c
timeout 100 compute-sanitizer --tool $t --error-exitcode 9 $P/qnew --check --shape 2304x2560 --recipe $1 --input $2 --outputs both --reps 1 --warmup 0 > $OUT/r/san-$t-$1-$2.txt 2>&1; echo "$t $c rc $?" >> $T; done; done
for b in qold qnew qold qnew; do timeout 150 $P/$b --input bf16 --reps 20 --json $OUT/r/q-$b.jsonl > $OUT/r/q-$b.txt 2>&1; echo "$b rc $? $(tail -2 $OUT/r/q-$b.txt | tr '\n' ' ')" >> $T; done
cat $T
cd $OUT && tar czf x.tgz r && rm -rf r
