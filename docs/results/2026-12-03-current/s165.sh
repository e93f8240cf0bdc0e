#!/bin/bash
# s165 (from the repository root; issue 34): p26 (the commit after 5a6c244: x's words by cp.async only where every
# row starts on 4 bytes, the edges' cut words by shared stores) after s164's memcheck error on p25 (a 4-byte
# cp.async with 2 source bytes, 2 bytes past x). The Quantize GPU tests (a new one: every row alignment of 2-byte
# inputs) and memcheck on them; memcheck and racecheck on --check of 261x389; times against p24 (f7533bd, x shifted
# for every 2-byte row off 16 bytes) where 2-byte rows are on 4 bytes but not 16 (8192x8190); the random report on
# seed 1764036199 (p25 60.7%) and a fresh seed.
cd "$(dirname "$0")/../../.." ; tar xJf .lab/q.txz -C .lab
R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
q=.lab/p26/xpose-quantize-bench
timeout 150 .lab/p26/xpose_gpu_tests --gtest_filter='Quantize.*' > $R/gtest.txt 2>&1; echo "gtest rc $?: $(grep -E '^\[  (PASSED|FAILED) ' $R/gtest.txt | tr '\n' ' ')"
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 .lab/p26/xpose_gpu_tests --gtest_filter='Quantize.GpuMatches*:Quantize.GpuEvery*' > $R/memcheck-gtest.txt 2>&1; echo "memcheck gtest rc $?: $(grep -E 'ERROR SUMMARY' $R/memcheck-gtest.txt | head -1)"
for tool in memcheck racecheck; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $q --check --shape 261x389 --reps 1 --warmup 0 --input fp32,bf16,fp16 > $R/$tool.txt 2>&1
  echo "$tool rc $?: $(grep -c passed $R/$tool.txt) passed, $(grep -c FAILED $R/$tool.txt) failed; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $R/$tool.txt | head -1)"
done
for v in p24 p26; do timeout 40 .lab/$v/xpose-quantize-bench --shape 8192x8190 --input bf16,fp32 --recipe delayed,mxfp8 --reps 10 >> $R/times-$v.txt 2>&1; done
paste <(grep -E '^  (bf16|fp32) ' $R/times-p24.txt | awk '{print $1, $2, $3, $4, $7}') <(grep -E '^  (bf16|fp32) ' $R/times-p26.txt | awk '{print $7}')
timeout 100 $q --random 200 --seed 1764036199 --reps 10 --json $R/p26-1764036199.jsonl > $R/p26-1764036199.txt 2>&1; echo "p26 1764036199 rc $?: $(grep '^==' $R/p26-1764036199.txt)"
seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
timeout 100 $q --random 200 --seed $seed --reps 10 --json $R/p26-$seed.jsonl > $R/p26-$seed.txt 2>&1; echo "p26 fresh rc $?: $(grep '^==' $R/p26-$seed.txt)"
tail -6 $R/p26-$seed.txt
cd $OUT && tar czf x.tgz r && rm -rf r
