#!/bin/bash
# fc5cd2d: in-place GPU tests, sanitizers on the wider narrow rule, fresh random draws, Nsight Compute source counters of the chain pass
tar xJf .lab/pb11.txz
B=prebuilt/xpose-bench
mkdir -p $OUT/r
timeout 200 prebuilt/xpose_gpu_tests --gtest_filter='Inplace*' > $OUT/r/tests.log 2>&1; echo "tests rc $? $(grep -E '^\[  (PASSED|FAILED)' $OUT/r/tests.log | tr '\n' ' ')" | tee -a $OUT/r/table
for tool in memcheck racecheck; do for s in u8:2003x3001x2 fp16:2500x3001 u8:3100x3203; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $B --inplace --dtype ${s%%:*} --shape ${s#*:} --reps 1 --check --no-progress > $OUT/r/$tool-${s/:/-}.txt 2>&1
  echo "$tool $s rc $? $(grep -c 'passed' $OUT/r/$tool-${s/:/-}.txt) $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/r/$tool-${s/:/-}.txt)" | tee -a $OUT/r/table
done; done
seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
timeout 90 $B --inplace --random 40 --seed $seed --reps 10 --check --no-progress --json $OUT/r/random.jsonl > $OUT/r/random.txt 2>&1
grep -h -A3 '^== in place, %' $OUT/r/random.txt | tee -a $OUT/r/table
for s in fp32:1100003x16 u8:11877x39936; do
  timeout 100 ncu --clock-control none -k regex:inplace_move -c 1 --section SourceCounters --section WarpStateStats --section SchedulerStats \
    --import-source no -o $OUT/r/chains-${s/:/-} $B --inplace --dtype ${s%%:*} --shape ${s#*:} --reps 1 --warmup 0 > $OUT/r/ncu-${s/:/-}.log 2>&1
  ncu -i $OUT/r/chains-${s/:/-}.ncu-rep --page source --csv --print-source sass > $OUT/r/sass-${s/:/-}.csv 2>&1
  ncu -i $OUT/r/chains-${s/:/-}.ncu-rep --page details --csv > $OUT/r/details-${s/:/-}.csv 2>&1
  rm -f $OUT/r/chains-${s/:/-}.ncu-rep
done
ls -la $OUT/r | tail -5
cd $OUT && tar czf x.tgz r && rm -rf r
