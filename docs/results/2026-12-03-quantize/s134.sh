#!/bin/bash
# s134 (from the repository root; q0 = ea51896): the bf16 quantize case list, both outputs, as it stands; then
# Nsight Compute --set full on one launch each of bf16 8192x8192 MXFP8 and 1x128 with both outputs (the staged
# kernel): details and the per-instruction source page (SASS, executed instructions and stall samples).
cd "$(dirname "$0")/../../.." ; tar xJf .lab/q0.txz -C .lab
P=$PWD/.lab/q0; R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt
timeout 200 $P/xpose-quantize-bench --input bf16 --outputs both --reps 20 --json $R/base.jsonl > $R/base.txt 2>&1; echo "bench rc $?"
i=0; for rc in mxfp8 1x128; do i=$((i+1))
  timeout 150 ncu --clock-control none --kernel-name regex:quantize_staged --launch-count 1 --set full --import-source no -o $R/rep-$i \
    $P/xpose-quantize-bench --shape 8192x8192 --input bf16 --recipe $rc --outputs both --reps 1 --warmup 0 > $R/ncu-run-$i.txt 2>&1
  ncu -i $R/rep-$i.ncu-rep --page details > $R/ncu-$i.txt 2>&1
  ncu -i $R/rep-$i.ncu-rep --page source --csv --print-source sass > $R/sass-$i.csv 2>&1
  echo "$i $rc: $(grep -E '^ +(Duration|DRAM Throughput|L2 Cache Throughput|Issue Slots Busy|Executed Instructions|Achieved Occupancy|Registers Per Thread|Eligible Warps Per Scheduler) ' $R/ncu-$i.txt | awk '{printf "%s=%s ", $1, $NF}')" >> $R/ncu-table
done
rm -f $R/rep-*.ncu-rep
grep -E 'both' $R/base.txt | cut -c1-120
cat $R/ncu-table
cd $OUT && tar czf x.tgz r && rm -rf r
