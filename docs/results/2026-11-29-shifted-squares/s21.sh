#!/bin/bash
# shifted packed square tiles (1-2 byte elements off 16 bytes) vs 6a755d4; narrow spread/framed edge words via store_part
tar xJf .lab/pb21.txz
A=prebuilt/old-bench; B=prebuilt/xpose-bench
mkdir -p $OUT/r
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
timeout 240 prebuilt/xpose_gpu_tests --gtest_filter='Inplace*' > $OUT/r/tests.log 2>&1; echo "tests rc $? $(grep -E '^\[  (PASSED|FAILED)' $OUT/r/tests.log | tr '\n' ' ')" | tee -a $OUT/r/table
grep -E 'Failure|seed|first diff' $OUT/r/tests.log | head -8 | tee -a $OUT/r/table
for tool in memcheck racecheck; do for s in u8:1031x1031 fp16:1027x1027 u8:2062x1031 u8:4097x4097x2; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $B --inplace --dtype ${s%%:*} --shape ${s#*:} --reps 1 --check --no-progress > $OUT/r/$tool-${s/:/-}.txt 2>&1
  echo "$tool $s rc $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/r/$tool-${s/:/-}.txt)" | tee -a $OUT/r/table
done; done
for s in u8:8193x8193 u8:16383x16383 fp16:8191x8191 fp16:11587x11587 u8:12059x12059 u8:16382x8191 fp16:4097x4097x3 u8:22369623x3 fp16:1915x17663x7 u8:1073x29339x5; do
  d=${s%%:*}; sh=${s#*:}
  $A --inplace --dtype $d --shape $sh --reps 10 --no-progress > $OUT/r/a-$d-$sh.txt 2>&1
  $B --inplace --dtype $d --shape $sh --reps 10 --check --no-progress > $OUT/r/b-$d-$sh.txt 2>&1
  $A --inplace --dtype $d --shape $sh --reps 10 --no-progress > $OUT/r/a2-$d-$sh.txt 2>&1
  $B --inplace --dtype $d --shape $sh --reps 10 --no-progress > $OUT/r/b2-$d-$sh.txt 2>&1
  a=$(grep -E '^  inplace ' $OUT/r/a-$d-$sh.txt | awk '{print $6}'); a2=$(grep -E '^  inplace ' $OUT/r/a2-$d-$sh.txt | awk '{print $6}')
  b=$(grep -E '^  inplace ' $OUT/r/b-$d-$sh.txt | awk '{print $6, $8}'); b2=$(grep -E '^  inplace ' $OUT/r/b2-$d-$sh.txt | awk '{print $6}')
  echo "$d $sh before $a / $a2 after $b / $b2" | tee -a $OUT/r/table
done
cd $OUT && tar czf x.tgz r && rm -rf r
