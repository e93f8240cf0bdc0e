#!/bin/bash
# shifted chain pieces (new, prebuilt) against 3dc7ea0 (.lab/pb3dc), tests, sanitizers, random
tar xJf .lab/pb10.txz
A=.lab/pb3dc/xpose-bench; B=prebuilt/xpose-bench
mkdir -p $OUT/r
for s in fp16:1915x17663x7 fp16:381x15739x7 fp32:21x373049x6 fp32:22x866113x5 u8:11877x39936 u8:8191x12289 fp16:5003x10007 fp64:24467x891 fp32:8191x4099 fp64:100x100003 u8:39936x11877 fp16:7001x9001 fp32:1100003x16 fp64:262144x32 fp32:8192x4096 c128:25904x551; do
  d=${s%%:*}; sh=${s#*:}
  $A --inplace --dtype $d --shape $sh --reps 10 --no-progress > $OUT/r/a-$d-$sh.txt 2>&1
  $B --inplace --dtype $d --shape $sh --reps 10 --check --no-progress > $OUT/r/b-$d-$sh.txt 2>&1
  $A --inplace --dtype $d --shape $sh --reps 10 --no-progress > $OUT/r/a2-$d-$sh.txt 2>&1
  a=$(grep -E '^  inplace ' $OUT/r/a-$d-$sh.txt | awk '{print $6}'); a2=$(grep -E '^  inplace ' $OUT/r/a2-$d-$sh.txt | awk '{print $6}')
  b=$(grep -E '^  inplace ' $OUT/r/b-$d-$sh.txt | awk '{print $6, $8}')
  echo "$d $sh before $a / $a2 after $b" | tee -a $OUT/r/table
done
timeout 200 prebuilt/xpose_gpu_tests --gtest_filter='Inplace*' > $OUT/r/tests.log 2>&1; echo "tests rc $? $(grep -E 'PASSED|FAILED' $OUT/r/tests.log | tr '\n' ' ')" | tee -a $OUT/r/table
for tool in memcheck racecheck; do for s in fp16:301x2001x3 u8:3100x3203 fp32:1000x999 u8:2003x3001x2; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $B --inplace --dtype ${s%%:*} --shape ${s#*:} --reps 1 --check --no-progress > $OUT/r/$tool-${s/:/-}.txt 2>&1
  echo "$tool $s rc $? $(grep -c 'passed' $OUT/r/$tool-${s/:/-}.txt) $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/r/$tool-${s/:/-}.txt)" | tee -a $OUT/r/table
done; done
timeout 60 $A --inplace --random 40 --seed 1404234387 --reps 10 --no-progress --json $OUT/r/random-before.jsonl > $OUT/r/random-before.txt 2>&1
timeout 60 $B --inplace --random 40 --seed 1404234387 --reps 10 --check --no-progress --json $OUT/r/random-after.jsonl > $OUT/r/random-after.txt 2>&1
grep -h -A3 '^== in place, %' $OUT/r/random-before.txt $OUT/r/random-after.txt | tee -a $OUT/r/table
cd $OUT && tar czf x.tgz r && rm -rf r
