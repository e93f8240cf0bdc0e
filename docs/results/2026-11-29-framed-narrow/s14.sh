#!/bin/bash
# unified turn rule + framed chains for words <= 2 (B) against framed chains always + turn split (A)
mkdir -p .lab/A && tar xJf .lab/pb16.txz -C .lab/A && tar xJf .lab/pb17.txz
A=.lab/A/prebuilt/xpose-bench; B=prebuilt/xpose-bench
mkdir -p $OUT/r
timeout 200 prebuilt/xpose_gpu_tests --gtest_filter='Inplace*' > $OUT/r/tests.log 2>&1; echo "tests rc $? $(grep -E '^\[  (PASSED|FAILED)' $OUT/r/tests.log | tr '\n' ' ')" | tee -a $OUT/r/table
grep -E 'Failure|seed' $OUT/r/tests.log | head -5 | tee -a $OUT/r/table
for tool in memcheck racecheck; do for s in u8:2001x45x3 fp16:191x4099x3 fp64:101x3001x3 fp16:1915x1763x2 u8:3001x1003x3; do [ $tool = racecheck ] && [ $s != u8:2001x45x3 ] && [ $s != fp16:191x4099x3 ] && continue
  timeout 40 compute-sanitizer --tool $tool --error-exitcode 9 $B --inplace --dtype ${s%%:*} --shape ${s#*:} --reps 1 --check --no-progress > $OUT/r/$tool-${s/:/-}.txt 2>&1
  echo "$tool $s rc $? $(grep -c 'passed' $OUT/r/$tool-${s/:/-}.txt) $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/r/$tool-${s/:/-}.txt)" | tee -a $OUT/r/table
done; done
for s in fp16:1915x17663x7 u8:1073x29339x5 fp16:381x15739x7 fp64:101x30011x3 fp32:203x100003x3 fp16:17663x1915x5 fp16:1915x17664x7 fp16:1920x17663x7 fp16:60013x500 u8:104192x671 fp32:167773x100 u8:376429x1139; do
  d=${s%%:*}; sh=${s#*:}
  $A --inplace --dtype $d --shape $sh --reps 10 --no-progress > $OUT/r/a-$d-$sh.txt 2>&1
  $B --inplace --dtype $d --shape $sh --reps 10 --check --no-progress > $OUT/r/b-$d-$sh.txt 2>&1
  $A --inplace --dtype $d --shape $sh --reps 10 --no-progress > $OUT/r/a2-$d-$sh.txt 2>&1
  $B --inplace --dtype $d --shape $sh --reps 10 --no-progress > $OUT/r/b2-$d-$sh.txt 2>&1
  a=$(grep -E '^  inplace ' $OUT/r/a-$d-$sh.txt | awk '{print $6}'); a2=$(grep -E '^  inplace ' $OUT/r/a2-$d-$sh.txt | awk '{print $6}')
  b=$(grep -E '^  inplace ' $OUT/r/b-$d-$sh.txt | awk '{print $6, $8}'); b2=$(grep -E '^  inplace ' $OUT/r/b2-$d-$sh.txt | awk '{print $6}')
  echo "$d $sh before $a / $a2 after $b / $b2" | tee -a $OUT/r/table
done
for s in fp16:1915x17663x7 u8:1073x29339x5; do
  echo "== $s" >> $OUT/r/table
  timeout 100 ncu --clock-control none -k "regex:narrow|inplace_move" -c 12 --metrics gpu__time_duration.sum $B --inplace --dtype ${s%%:*} --shape ${s#*:} --reps 1 --warmup 0 --no-progress 2>&1 | grep -E "^  [a-zA-Z_].*\(|gpu__time" | sed -E 's/\(.*\) \(/ (/; s/, Context.*//; s/^ *//; s/ +/ /g' | paste - - >> $OUT/r/table
done
tail -8 $OUT/r/table
cd $OUT && tar czf x.tgz r && rm -rf r
