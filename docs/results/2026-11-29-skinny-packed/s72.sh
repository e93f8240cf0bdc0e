#!/bin/bash
# af77c0a (new): GPU tests, N-D and 2-D random; skinny-shifted-pad (sk) A/B on shifted interleaves
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar xJf .lab/pc.txz -C .lab; mkdir -p $OUT/r; P=.lab/pc; T=$OUT/r/table
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader >> $T
timeout 280 $P/gpu_tests --gtest_brief=1 > $OUT/r/tests.log 2>&1; echo "tests rc $? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' $OUT/r/tests.log | tr '\n' ' ')" >> $T
grep -E 'Failure|FAILED' $OUT/r/tests.log | head -8 >> $T
timeout 60 $P/sk_tests --gtest_brief=1 --gtest_filter='*kinny*' > $OUT/r/sktests.log 2>&1; echo "sk tests rc $? $(grep -E '^\[  (PASSED|FAILED)' $OUT/r/sktests.log | tr '\n' ' ')" >> $T
for t in memcheck racecheck; do for sh in "u8 8x100003" "u8 100003x8" "fp16 4x100001" "fp32 100001x2" "c128 8x10001"; do set -- $sh
timeout 60 compute-sanitizer --tool $t --error-exitcode 9 $P/sk2d --dtype $1 --shape $2 --kernel skinny --no-peers --reps 1 --warmup 0 --check > $OUT/r/san-$t-$1-$2.txt 2>&1; echo "$t $1 $2 rc $?" >> $T; done; done
for d in u8:1 fp16:2 fp32:4 fp64:8 c128:16; do n=${d%%:*}; e=${d##*:}; for S in 2 4 8; do N=$(( (16<<20) / (S*e) | 1 ))
for sh in ${S}x$N ${N}x$S; do r=""; for b in new2d sk2d; do timeout 30 $P/$b --dtype $n --shape $sh --kernel auto --no-peers --reps 20 --check --json $OUT/r/sk-$b.jsonl > $OUT/r/sk-$b-$n-$sh.txt 2>&1; r="$r $b $(awk '$1=="auto"{print $6, $7; exit}' $OUT/r/sk-$b-$n-$sh.txt)"; done; echo "$n $sh $r" >> $T; done; done; done
S=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
timeout 60 $P/new --random 500 --seed $S --reps 10 --no-host-time --json $OUT/r/nd-new-$S.jsonl > $OUT/r/nd-new-$S.txt 2>&1; echo "N-D new seed $S rc $? $(grep -E 'median' $OUT/r/nd-new-$S.txt | tail -1)" >> $T
S=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
for b in new2d sk2d; do timeout 60 $P/$b --random 500 --seed $S --kernel auto --no-peers --reps 10 --no-progress --json $OUT/r/2d-$b-$S.jsonl > $OUT/r/2d-$b-$S.txt 2>&1; echo "2-D $b seed $S rc $? $(grep -E 'median' $OUT/r/2d-$b-$S.txt | tail -1)" >> $T; done
cat $T
cd $OUT && tar czf x.tgz r && rm -rf r
