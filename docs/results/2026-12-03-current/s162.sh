#!/bin/bash
# s162 (from the repository root; issue 34; not yet run, a diagnosis): what the split output vectors cost
# quantize_staged where rows are off 16 bytes (s158: 5x the L2 write sector operations, 3x the instructions).
# p19 = 8908605 (as main); pe1 = branch exp-qsplit with XPOSE_EXP_SPLIT 1 (the split vectors' parts not stored:
# wrong output, a bound); pe2 = XPOSE_EXP_SPLIT 2 (whole vectors by plain stores, not __stcg); pe3 = XPOSE_EXP_SPLIT
# 3 (data's whole vectors ordered so that each store instruction fills whole sectors; checked first). bf16
# delayed, rows alone 8192x8191 and columns alone 8191x8192 under Nsight Compute, then timed with 8192x8192.
cd "$(dirname "$0")/../../.." ; tar xJf .lab/pe.txz -C .lab
R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
for sh in 261x389 8192x8191 3001x4099; do timeout 60 .lab/pe3/xpose-quantize-bench --check --shape $sh --reps 1 --input fp32,bf16,fp16 > $R/check-pe3-$sh.txt 2>&1; echo "pe3 check $sh rc $?: $(grep -c passed $R/check-pe3-$sh.txt) passed, $(grep -c FAILED $R/check-pe3-$sh.txt) failed"; done
for v in p19 pe1 pe2 pe3; do
  q=.lab/$v/xpose-quantize-bench
  for c in "8192x8191 rows" "8191x8192 columns"; do
    set -- $c
    timeout 60 ncu --clock-control none -k regex:quantize_staged -c 1 --section SpeedOfLight --section WarpStateStats \
      --metrics smsp__inst_executed.sum,lts__t_sectors_op_write.sum,lts__t_requests_op_write.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum \
      $q --shape $1 --input bf16 --recipe delayed --outputs $2 --reps 1 --warmup 0 > $R/ncu-$v-$1-$2.txt 2>&1
    echo "$v $1 $2: $(grep -E 'Duration|smsp__inst_executed.sum|lts__t_(sectors|requests)_op_write' $R/ncu-$v-$1-$2.txt | awk '{print $1, $NF}' | tr '\n' ' ')"
  done
  for s in 8192x8192 8192x8191 8191x8192; do timeout 60 $q --shape $s --input bf16 --recipe delayed,mxfp8 --reps 10 >> $R/times-$v.txt 2>&1; done
  echo "$v: $(grep -E '^  bf16' $R/times-$v.txt | awk '{print $2, $3, $4, $7}' | tr '\n' ';')"
done
cd $OUT && tar czf x.tgz r && rm -rf r
