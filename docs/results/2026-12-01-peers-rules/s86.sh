#!/bin/bash
# s86: Nsight Compute for the next steps: the c128 draw PyTorch led by 1.34x (permute_vec_tiled), quantize bf16 8192^2 1x128/mxfp8/delayed both
cd "$(dirname "$0")/.." ; tar xJf .lab/p86.txz -C .lab
N=$PWD/.lab/p86; R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$N
S="--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section LaunchStats --section Occupancy --section SchedulerStats --section SourceCounters --section MemoryWorkloadAnalysis_Tables"
timeout 90 ncu --clock-control none $S -k regex:permute --launch-count 1 $N/xpose-permute-bench --dtype c128 --extents 18,51,267,2,4,13 --perm 3,2,4,1,5,0 --kernel auto --reps 1 --warmup 0 --no-host-time > $R/ncu-c128.txt 2>&1
for rc in 1x128 mxfp8 delayed; do
  timeout 90 ncu --clock-control none $S -k regex:quantize --launch-count 1 $N/xpose-quantize-bench --input bf16 --recipe $rc --outputs both --shape 8192x8192 --reps 1 --warmup 0 > $R/ncu-q-$rc.txt 2>&1
done
for f in $R/ncu-*.txt; do echo "== $f"; grep -E "^  [a-z_]+.*\(|Duration|DRAM Throughput|Issue Slots Busy|Achieved Occupancy|Registers Per|L2 Hit Rate|Executed Ipc A|Warp Cycles Per Issued" $f | head -12; done > $R/table
cat $R/table
cd $OUT && tar czf x.tgz r && rm -rf r
