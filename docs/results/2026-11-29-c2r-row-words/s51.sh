#!/bin/bash
# c2r_row_words: c2r's rows pass for 1- and 2-byte elements as the aligned words around each row (new) against 5ab9d66 (old)
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar xJf .lab/pbx.txz -C .lab; mkdir -p $OUT/r; P=.lab/pbx
timeout 150 $P/gpu_tests --gtest_filter='Inplace.GpuRectangleSharingLittle*:Inplace.Refused*' > $OUT/r/tests.log 2>&1; echo "tests rc $? $(grep -E '^\[  (PASSED|FAILED)' $OUT/r/tests.log | tr '\n' ' ')" > $OUT/r/table
grep -E 'Failure|seed' $OUT/r/tests.log | head -5 >> $OUT/r/table
for tool in memcheck racecheck; do for s in u8:6200x6301 u8:6301x6200x2 fp16:3100x3203; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $P/new --inplace --dtype ${s%%:*} --shape ${s#*:} --reps 1 --check --no-progress > $OUT/r/$tool-${s/:/-}.txt 2>&1
  echo "$tool $s rc $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/r/$tool-${s/:/-}.txt) $(grep -E '^  inplace ' $OUT/r/$tool-${s/:/-}.txt | awk '{print $8}')" >> $OUT/r/table
done; done
for s in u8:11877x39936 u8:39936x11877 u8:7675x34048 u8:6337x26368 u8:9001x10007x2 fp16:5003x10007 fp16:10007x5003 fp16:8191x12289 fp32:8191x4099; do
  d=${s%%:*}; sh=${s#*:}; line="$d $sh"
  for b in old new; do
    c=""; [ $b = new ] && c=--check
    timeout 60 $P/$b --inplace --dtype $d --shape $sh --reps 5 $c --no-progress > $OUT/r/$b-$d-$sh.txt 2>&1
    line="$line $b $(grep -E '^  inplace ' $OUT/r/$b-$d-$sh.txt | awk '{print $6, $8}')"
  done
  echo "$line" >> $OUT/r/table
done
cat $OUT/r/table
cd $OUT && tar czf x.tgz r && rm -rf r
