#!/bin/bash
# s163 (from the repository root; issue 34): quantize_staged storing data's and data_t's rows off 16 bytes by
# sectors (aae2d9a, p22: whole sectors from shared memory, a byte a lane where a row shares a sector) against
# 33abd16 (p21: the aligned 1-16 byte parts of split vectors); p23 (c64b064) adds x's shifted chunks taking the
# next word from the next lane (half the loads). With p23: the Quantize GPU tests, --check of odd shapes; times
# of bf16/fp32 8192x8192 (aligned), 8192x8191 and 8191x8192, each build; Nsight Compute on bf16 delayed rows
# 8192x8191 and columns 8191x8192 (as s158), each build; memcheck and racecheck on --check of 261x389 (p23); the
# random report on s154's seed 1764036199 (s157: 51.4% median) and a fresh seed (p23).
cd "$(dirname "$0")/../../.." ; tar xJf .lab/q.txz -C .lab
R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
q=.lab/p23/xpose-quantize-bench
timeout 150 .lab/p23/xpose_gpu_tests --gtest_filter='Quantize.*' > $R/gtest.txt 2>&1; echo "gtest rc $?: $(grep -E '^\[  (PASSED|FAILED) ' $R/gtest.txt | tr '\n' ' ')"
for s in 3001x4099 4097x2049 1029x16387 739x34851 8192x8191; do timeout 40 $q --check --shape $s --reps 1 --input fp32,bf16,fp16 > $R/check-$s.txt 2>&1; echo "check $s rc $?: $(grep -c passed $R/check-$s.txt) passed, $(grep -c FAILED $R/check-$s.txt) failed"; done
for v in p21 p22 p23; do
  for s in 8192x8192 8192x8191 8191x8192; do timeout 40 .lab/$v/xpose-quantize-bench --shape $s --input bf16,fp32 --recipe delayed,mxfp8 --reps 10 >> $R/times-$v.txt 2>&1; done
done
paste <(grep -E '^  (bf16|fp32) ' $R/times-p21.txt | awk '{print $1, $2, $3, $4, $7}') <(grep -E '^  (bf16|fp32) ' $R/times-p22.txt | awk '{print $7}') <(grep -E '^  (bf16|fp32) ' $R/times-p23.txt | awk '{print $7}') | column -t
for v in p21 p22 p23; do
  for c in "8192x8191 rows" "8191x8192 columns"; do
    set -- $c
    timeout 40 ncu --clock-control none -k regex:quantize_staged -c 1 --section SpeedOfLight \
      --metrics smsp__inst_executed.sum,lts__t_sectors_op_write.sum,lts__t_sectors_op_read.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum \
      .lab/$v/xpose-quantize-bench --shape $1 --input bf16 --recipe delayed --outputs $2 --reps 1 --warmup 0 > $R/ncu-$v-$1-$2.txt 2>&1
    echo "$v $1 $2: $(grep -E 'Duration|L2 Cache Throughput|smsp__inst_executed.sum|lts__t_sectors_op_write|l1tex__t_sectors' $R/ncu-$v-$1-$2.txt | awk '{print $1, $NF}' | tr '\n' ' ')"
  done
done
for tool in memcheck racecheck; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $q --check --shape 261x389 --reps 1 --warmup 0 --input fp32,bf16,fp16 > $R/$tool.txt 2>&1
  echo "$tool rc $?: $(grep -c passed $R/$tool.txt) passed, $(grep -c FAILED $R/$tool.txt) failed; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $R/$tool.txt | head -1)"
done
timeout 100 $q --random 200 --seed 1764036199 --reps 10 --json $R/p23-1764036199.jsonl > $R/p23-1764036199.txt 2>&1; echo "p23 1764036199 rc $?: $(grep '^==' $R/p23-1764036199.txt)"
seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
timeout 100 $q --random 200 --seed $seed --reps 10 --json $R/p23-$seed.jsonl > $R/p23-$seed.txt 2>&1; echo "p23 fresh rc $?: $(grep '^==' $R/p23-$seed.txt)"
tail -6 $R/p23-$seed.txt
cd $OUT && tar czf x.tgz r && rm -rf r
