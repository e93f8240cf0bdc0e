#!/bin/bash
# s90: ncu quantize_staged base vs s1h0 vs s2h0, bf16 8192x8192 delayed and 1x128, both outputs
cd "$(dirname "$0")/.." ; [ -d .lab/p88 ] || tar xJf .lab/p88.txz -C .lab
D=$PWD/.lab/p88; R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$D
for v in base s1h0 s2h0; do for rc in delayed 1x128; do
  timeout 60 ncu --clock-control none --section LaunchStats --section Occupancy --section SpeedOfLight --section WarpStateStats -k regex:quantize_staged -c 1 \
    $D/q-$v --input bf16 --recipe $rc --outputs both --shape 8192x8192 --reps 1 --warmup 0 > $R/ncu-$v-$rc.txt 2>&1
  echo "== $v $rc"; grep -E "Duration|Grid Size|Block Limit|Achieved Occupancy|Theoretical Occupancy|DRAM Throughput|Waves Per SM|Shared Memory Configuration Size|Driver Shared" $R/ncu-$v-$rc.txt
done; done > $R/table
cat $R/table
cd $OUT && tar czf x.tgz r && rm -rf r
