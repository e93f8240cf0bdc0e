#!/bin/bash
# s170 (from the repository root; issue 34; not yet run, a diagnosis for the next device time): where quantize_staged's
# instructions and stalls go after fcaf734 where rows are off 16 bytes: Nsight Compute's per-instruction source
# counters and warp states on bf16 delayed rows 8192x8191 (x shifted, data by sectors), columns 8191x8192 (data_t
# by sectors) and columns 8192x8192 (aligned). Build: scripts/build at the commit that runs it, xpose-quantize-bench
# stripped into .lab/p28/, `tar cJf .lab/q.txz -C .lab p28`.
cd "$(dirname "$0")/../../.." ; tar xJf .lab/q.txz -C .lab
R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
for c in "8192x8191 rows" "8191x8192 columns" "8192x8192 columns"; do
  set -- $c
  timeout 60 ncu --clock-control none -k regex:quantize_staged -c 1 --section SourceCounters --section WarpStateStats \
    --section InstructionStats --section SpeedOfLight -o $R/src-$1-$2 .lab/p28/xpose-quantize-bench --shape $1 \
    --input bf16 --recipe delayed --outputs $2 --reps 1 --warmup 0 > $R/ncu-$1-$2.log 2>&1
  ncu --import $R/src-$1-$2.ncu-rep --page source --print-source sass --csv > $R/sass-$1-$2.csv 2> $R/sass-$1-$2.err
  ncu --import $R/src-$1-$2.ncu-rep --page details > $R/details-$1-$2.txt 2>&1
  rm -f $R/src-$1-$2.ncu-rep
  echo "$1 $2: $(grep -E 'Duration|Executed Instructions  |L2 Cache Throughput|DRAM Throughput' $R/details-$1-$2.txt | awk '{print $1, $NF}' | tr '\n' ' ')"
done
cd $OUT && tar czf x.tgz r && rm -rf r
