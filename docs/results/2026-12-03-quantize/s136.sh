#!/bin/bash
# s136 (from the repository root; q1 = 5bba9d9): Nsight Compute --set full with the per-instruction source page (SASS)
# on one launch each of bf16 8192x8192 MXFP8, 1x128 and delayed with both outputs, to see where q1's instructions go.
cd "$(dirname "$0")/../../.." ; tar xJf .lab/q1.txz -C .lab
P=$PWD/.lab/q1; R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
i=0; for rc in mxfp8 1x128 delayed; do i=$((i+1))
  timeout 150 ncu --clock-control none --kernel-name regex:quantize_staged --launch-count 1 --set full --import-source no -o $R/rep-$i \
    $P/xpose-quantize-bench --shape 8192x8192 --input bf16 --recipe $rc --outputs both --reps 1 --warmup 0 > $R/ncu-run-$i.txt 2>&1
  ncu -i $R/rep-$i.ncu-rep --page details > $R/ncu-$i.txt 2>&1
  ncu -i $R/rep-$i.ncu-rep --page source --csv --print-source sass > $R/sass-$i.csv 2>&1
  echo "$i $rc: $(grep -E '^ +(Duration|DRAM Throughput|L2 Cache Throughput|Issue Slots Busy|Executed Instructions|Achieved Occupancy|Eligible Warps Per Scheduler) ' $R/ncu-$i.txt | awk '{printf "%s=%s ", $1, $NF}')" >> $R/ncu-table
done
rm -f $R/rep-*.ncu-rep
cat $R/ncu-table
cd $OUT && tar czf x.tgz r && rm -rf r
