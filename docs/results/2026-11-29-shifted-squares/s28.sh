#!/bin/bash
# shifted vector tiles (every lane shuffles) (B) against 5fc55c4 (A)
tar xJf .lab/pb28.txz
A=prebuilt/old-bench; B=prebuilt/xpose-bench
mkdir -p $OUT/r
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
timeout 60 prebuilt/xpose_gpu_tests --gtest_filter='Inplace.GpuSquare*:Inplace.GpuRectangleMatches*' > $OUT/r/tests.log 2>&1; echo "tests rc $? $(grep -E '^\[  (PASSED|FAILED)' $OUT/r/tests.log | tr '\n' ' ')" | tee -a $OUT/r/table
grep -E 'Failure|seed|first diff' $OUT/r/tests.log | head -8 | tee -a $OUT/r/table
for tool in memcheck racecheck; do for s in fp32:1001x1001 fp64:1003x1003; do
  timeout 30 compute-sanitizer --tool $tool --error-exitcode 9 $B --inplace --dtype ${s%%:*} --shape ${s#*:} --reps 1 --check --no-progress > $OUT/r/$tool-${s/:/-}.txt 2>&1
  echo "$tool $s rc $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/r/$tool-${s/:/-}.txt)" | tee -a $OUT/r/table
done; done
for s in fp32:8191x8191 fp64:4099x4099 fp64:8191x8191 fp32:4403x4403x3 u8:8193x8193 fp16:8191x8191; do
  d=${s%%:*}; sh=${s#*:}
  timeout 20 $A --inplace --dtype $d --shape $sh --reps 10 --no-progress > $OUT/r/a-$d-$sh.txt 2>&1
  timeout 20 $B --inplace --dtype $d --shape $sh --reps 10 --check --no-progress > $OUT/r/b-$d-$sh.txt 2>&1
  a=$(grep -E '^  inplace ' $OUT/r/a-$d-$sh.txt | awk '{print $6}')
  b=$(grep -E '^  inplace ' $OUT/r/b-$d-$sh.txt | awk '{print $6, $8}')
  echo "$d $sh before $a after $b" | tee -a $OUT/r/table
done
cd $OUT && tar czf x.tgz r && rm -rf r
