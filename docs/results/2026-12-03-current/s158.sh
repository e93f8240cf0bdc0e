#!/bin/bash
# s158 (from the repository root; issue 34): Nsight Compute on quantize_staged (p19 = 8908605) where rows are off
# 16 bytes: bf16 delayed, rows alone at 8192x8192 (aligned) and 8192x8191 (x's and data's rows shifted); columns
# alone at 8192x8191 (x's rows shifted) and 8191x8192 (data_t's rows shifted); both at 8191x8191.
cd "$(dirname "$0")/../../.." ; tar xJf .lab/p19.txz -C .lab
R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
q=.lab/p19/xpose-quantize-bench
for c in "8192x8192 rows" "8192x8191 rows" "8192x8191 columns" "8191x8192 columns" "8191x8191 both"; do
  set -- $c
  timeout 60 ncu --clock-control none -k regex:quantize_staged -c 1 --section SpeedOfLight --section WarpStateStats \
    --section Occupancy --metrics smsp__inst_executed.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_write.sum,lts__t_sectors_op_read.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum \
    $q --shape $1 --input bf16 --recipe delayed --outputs $2 --reps 1 --warmup 0 > $R/ncu-$1-$2.txt 2>&1
  echo "ncu $1 $2 rc $?"
  grep -E "Duration|smsp__inst_executed.sum|dram__bytes|lts__t_sectors_op|l1tex__t_(requests|sectors)_pipe|Achieved Occupancy|Stall|Warp Cycles Per Issued" $R/ncu-$1-$2.txt | head -20
done
for s in 8192x8192 8192x8191 8191x8192 8191x8191; do timeout 60 $q --shape $s --input bf16 --recipe delayed,mxfp8 --reps 10 >> $R/times.txt 2>&1; done
grep -E "bf16" $R/times.txt
cd $OUT && tar czf x.tgz r && rm -rf r
