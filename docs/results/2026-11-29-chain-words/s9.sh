#!/bin/bash
# chains: whole words a thread a piece (vecs % 32 == 0) against fc5cd2d; in-place tests; sanitizers
tar xJf .lab/pb12.txz
A=.lab/pbfc/xpose-bench; B=prebuilt/xpose-bench
mkdir -p $OUT/r
for s in fp32:1100003x16 fp32:167773x100 fp64:262144x32 fp16:349529x96 u8:447392x150 c128:100003x100 fp32:2097152x8 fp32:8192x4096 fp16:65536x1024 fp64:24467x891 fp32:8191x4099 u8:104192x671; do
  d=${s%%:*}; sh=${s#*:}
  $A --inplace --dtype $d --shape $sh --reps 10 --no-progress > $OUT/r/a-$d-$sh.txt 2>&1
  $B --inplace --dtype $d --shape $sh --reps 10 --check --no-progress > $OUT/r/b-$d-$sh.txt 2>&1
  $A --inplace --dtype $d --shape $sh --reps 10 --no-progress > $OUT/r/a2-$d-$sh.txt 2>&1
  $B --inplace --dtype $d --shape $sh --reps 10 --no-progress > $OUT/r/b2-$d-$sh.txt 2>&1
  a=$(grep -E '^  inplace ' $OUT/r/a-$d-$sh.txt | awk '{print $6}'); a2=$(grep -E '^  inplace ' $OUT/r/a2-$d-$sh.txt | awk '{print $6}')
  b=$(grep -E '^  inplace ' $OUT/r/b-$d-$sh.txt | awk '{print $6, $8}'); b2=$(grep -E '^  inplace ' $OUT/r/b2-$d-$sh.txt | awk '{print $6}')
  echo "$d $sh before $a / $a2 after $b / $b2" | tee -a $OUT/r/table
done
timeout 150 prebuilt/xpose_gpu_tests --gtest_filter='Inplace*' > $OUT/r/tests.log 2>&1; echo "tests rc $? $(grep -E '^\[  (PASSED|FAILED)' $OUT/r/tests.log | tr '\n' ' ')" | tee -a $OUT/r/table
for tool in memcheck racecheck; do for s in fp32:5003x150; do
  timeout 40 compute-sanitizer --tool $tool --error-exitcode 9 $B --inplace --dtype ${s%%:*} --shape ${s#*:} --reps 1 --check --no-progress > $OUT/r/$tool-${s/:/-}.txt 2>&1
  echo "$tool $s rc $? $(grep -c 'passed' $OUT/r/$tool-${s/:/-}.txt) $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/r/$tool-${s/:/-}.txt)" | tee -a $OUT/r/table
done; done
cd $OUT && tar czf x.tgz r && rm -rf r
