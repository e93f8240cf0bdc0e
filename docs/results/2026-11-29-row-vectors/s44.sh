#!/bin/bash
# permute_row_vectors (vectors + store_part, 2 granules a thread, 40 regs) with H200 min_run_1 64: tests, a rows sweep, random A/B
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
mkdir -p $OUT/r; P=.lab/pbs
timeout 240 $P/gpu_tests --gtest_filter='Permute*' > $OUT/r/tests.log 2>&1; echo "tests rc $? $(grep -E '^\[  (PASSED|FAILED)' $OUT/r/tests.log | tr '\n' ' ')" > $OUT/r/table
grep -E 'Failure|seed' $OUT/r/tests.log | head -5 >> $OUT/r/table
echo "rows sweep: new row_vectors / packed / rows | old row_vectors (% copy, check)" >> $OUT/r/table
for c in "u8 512,32768,8" "u8 512,16384,15" "u8 512,8192,24" "u8 512,8192,33" "u8 512,4096,48" "u8 512,4096,63" "u8 512,2048,95" "u8 512,2048,129" "fp16 512,8192,12" "fp16 512,4096,24" "fp16 512,2048,63" "fp32 512,16384,3" "fp32 512,8192,7" "fp32 512,4096,15" "fp32 512,2048,33" "fp64 512,8192,3" "fp64 512,4096,9" "fp64 256,2048,45" "fp64 256,512,130" "c128 256,4096,5"; do
  set -- $c; line="$1 $2"
  timeout 60 $P/new --dtype $1 --extents $2 --perm 1,0,2 --reps 10 --no-host-time --check --kernel permute_row_vectors permute_packed permute_rows > $OUT/r/new-$1-$2.txt 2>&1
  line="$line | $(grep -E '^  permute_' $OUT/r/new-$1-$2.txt | awk '{printf "%s %s ", $6, $NF}')"
  timeout 60 $P/old --dtype $1 --extents $2 --perm 1,0,2 --reps 10 --no-host-time --kernel permute_row_vectors > $OUT/r/old-$1-$2.txt 2>&1
  line="$line | $(grep -E '^  permute_' $OUT/r/old-$1-$2.txt | awk '{printf "%s ", $6}')"
  echo "$line" >> $OUT/r/table
done
cat $OUT/r/table
cd $OUT && tar czf x.tgz r && rm -rf r
