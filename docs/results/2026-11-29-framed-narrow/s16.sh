#!/bin/bash
# u8 narrow up to 6144 (32-byte pieces) (B) against 4eae878 (A: c2r past 3072)
mkdir -p .lab/A && tar xJf .lab/pb18.txz -C .lab/A && tar xJf .lab/pb19.txz
A=.lab/A/prebuilt/xpose-bench; B=prebuilt/xpose-bench
mkdir -p $OUT/r
for s in u8:5001x20011 u8:26399x5609 u8:20011x5001 u8:4099x40009 u8:6143x30011 u8:3500x50021x2 u8:6337x26368 u8:2000x50001; do
  d=${s%%:*}; sh=${s#*:}
  $A --inplace --dtype $d --shape $sh --reps 10 --no-progress > $OUT/r/a-$d-$sh.txt 2>&1
  $B --inplace --dtype $d --shape $sh --reps 10 --check --no-progress > $OUT/r/b-$d-$sh.txt 2>&1
  $A --inplace --dtype $d --shape $sh --reps 10 --no-progress > $OUT/r/a2-$d-$sh.txt 2>&1
  $B --inplace --dtype $d --shape $sh --reps 10 --no-progress > $OUT/r/b2-$d-$sh.txt 2>&1
  a=$(grep -E '^  inplace ' $OUT/r/a-$d-$sh.txt | awk '{print $6}'); a2=$(grep -E '^  inplace ' $OUT/r/a2-$d-$sh.txt | awk '{print $6}')
  b=$(grep -E '^  inplace ' $OUT/r/b-$d-$sh.txt | awk '{print $6, $8}'); b2=$(grep -E '^  inplace ' $OUT/r/b2-$d-$sh.txt | awk '{print $6}')
  echo "$d $sh before $a / $a2 after $b / $b2 $(grep -o 'workspace [0-9]* bytes' $OUT/r/b-$d-$sh.txt | head -1)" | tee -a $OUT/r/table
done
for tool in memcheck racecheck; do for s in u8:4001x3500; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $B --inplace --dtype ${s%%:*} --shape ${s#*:} --reps 1 --check --no-progress > $OUT/r/$tool-${s/:/-}.txt 2>&1
  echo "$tool $s rc $? $(grep -c 'passed' $OUT/r/$tool-${s/:/-}.txt) $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/r/$tool-${s/:/-}.txt)" | tee -a $OUT/r/table
done; done
timeout 200 prebuilt/xpose_gpu_tests --gtest_filter='Inplace*' > $OUT/r/tests.log 2>&1; echo "tests rc $? $(grep -E '^\[  (PASSED|FAILED)' $OUT/r/tests.log | tr '\n' ' ')" | tee -a $OUT/r/table
grep -E 'Failure|seed' $OUT/r/tests.log | head -5 | tee -a $OUT/r/table
cd $OUT && tar czf x.tgz r && rm -rf r
