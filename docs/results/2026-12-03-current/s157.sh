#!/bin/bash
# s157 (from the repository root; issue 34): quantize_staged's edge tiles through the shifted vectors too and fp32
# tensor scales off 16 bytes through it, the amax pass by vectors at any alignment (faf221f, p19) against a6a42c4 (p16): the Quantize GPU tests, memcheck and
# racecheck on --check runs of odd shapes, --check of larger odd shapes, the random report on s154's seed 1764036199
# (both builds) and a fresh seed (p19), and the LLM shape list (p19; aligned shapes, against s145's figures);
# memcheck on the GPU test of every recipe, input and edge shape (x one element off in half of them). p19 = 8908605.
cd "$(dirname "$0")/../../.." ; tar xJf .lab/p19.txz -C .lab
R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
timeout 200 .lab/p19/xpose_gpu_tests --gtest_filter='Quantize.*' > $R/gtest.txt 2>&1; echo "gtest rc $?: $(grep -E '^\[  (PASSED|FAILED) ' $R/gtest.txt | tr '\n' ' ')"
timeout 220 compute-sanitizer --tool memcheck --error-exitcode 9 .lab/p19/xpose_gpu_tests --gtest_filter='Quantize.GpuMatches*' > $R/memcheck-gtest.txt 2>&1; echo "memcheck gtest rc $?: $(grep -E 'ERROR SUMMARY' $R/memcheck-gtest.txt | head -1)"
q=.lab/p19/xpose-quantize-bench
for tool in memcheck racecheck; do
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 $q --check --shape 261x389 --reps 1 --warmup 0 --input fp32,bf16,fp16 > $R/$tool.txt 2>&1
  echo "$tool rc $?: $(grep -c passed $R/$tool.txt) passed, $(grep -c FAILED $R/$tool.txt) failed; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $R/$tool.txt | head -1)"
done
for s in 3001x4099 4097x2049 1029x16387 739x34851; do timeout 60 $q --check --shape $s --reps 2 --input fp32,bf16,fp16 > $R/check-$s.txt 2>&1; echo "check $s rc $?: $(grep -c passed $R/check-$s.txt) passed, $(grep -c FAILED $R/check-$s.txt) failed"; done
for v in p16 p19; do timeout 100 .lab/$v/xpose-quantize-bench --random 200 --seed 1764036199 --reps 10 --json $R/$v-1764036199.jsonl > $R/$v-1764036199.txt 2>&1; echo "$v rc $?: $(grep '^==' $R/$v-1764036199.txt)"; done
seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
timeout 100 $q --random 200 --seed $seed --reps 10 --json $R/p19-$seed.jsonl > $R/p19-$seed.txt 2>&1; echo "p19 fresh rc $?: $(grep '^==' $R/p19-$seed.txt)"
timeout 150 $q --reps 20 --json $R/p19-list.jsonl > $R/p19-list.txt 2>&1; echo "list rc $?: $(grep '^==' $R/p19-list.txt)"
tail -6 $R/p19-$seed.txt
cd $OUT && tar czf x.tgz r && rm -rf r
