#!/bin/bash
# shifted vector tiles for 4-16 byte elements off 16 bytes (B) against 5fc55c4 (A: element tiles)
tar xJf .lab/pb27.txz
A=prebuilt/old-bench; B=prebuilt/xpose-bench
mkdir -p $OUT/r
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
timeout 200 prebuilt/xpose_gpu_tests --gtest_filter='Inplace.GpuSquare*:Inplace.GpuRectangleMatches*' > $OUT/r/tests.log 2>&1; echo "tests rc $? $(grep -E '^\[  (PASSED|FAILED)' $OUT/r/tests.log | tr '\n' ' ')" | tee -a $OUT/r/table
grep -E 'Failure|seed|first diff' $OUT/r/tests.log | head -8 | tee -a $OUT/r/table
for tool in memcheck racecheck; do for s in fp32:1001x1001 fp64:1003x1003 fp32:3x259x259 u8:1031x1031; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $B --inplace --dtype ${s%%:*} --shape ${s#*:} --reps 1 --check --no-progress > $OUT/r/$tool-${s/:/-}.txt 2>&1
  echo "$tool $s rc $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/r/$tool-${s/:/-}.txt)" | tee -a $OUT/r/table
done; done
for round in 1 2; do
for s in fp32:8191x8191 fp32:12289x12289 fp64:4099x4099 fp64:8191x8191 fp32:4403x4403x3 fp32:16382x8191 u8:8193x8193 fp16:8191x8191; do
  d=${s%%:*}; sh=${s#*:}
  $A --inplace --dtype $d --shape $sh --reps 10 --no-progress > $OUT/r/a$round-$d-$sh.txt 2>&1
  $B --inplace --dtype $d --shape $sh --reps 10 --check --no-progress > $OUT/r/b$round-$d-$sh.txt 2>&1
  a=$(grep -E '^  inplace ' $OUT/r/a$round-$d-$sh.txt | awk '{print $6}')
  b=$(grep -E '^  inplace ' $OUT/r/b$round-$d-$sh.txt | awk '{print $6, $8}')
  echo "$round $d $sh before $a after $b" | tee -a $OUT/r/table
done; done
cd $OUT && tar czf x.tgz r && rm -rf r
