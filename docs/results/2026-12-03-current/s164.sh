#!/bin/bash
# s164 (from the repository root; issue 34; a diagnosis, then s160 and s161): where quantize_staged's instructions
# go with rows off 16 bytes after s163 (aae2d9a, p22): Nsight Compute's source counters per SASS instruction
# (executed instructions, stall samples) on bf16 delayed rows 8192x8191 (x and data shifted), columns 8191x8192
# (data_t shifted) and columns 8192x8192 (aligned), and the kernel's SASS.
cd "$(dirname "$0")/../../.." ; tar xJf .lab/q.txz -C .lab
R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
for c in "8192x8191 rows" "8191x8192 columns" "8192x8192 columns"; do
  set -- $c
  timeout 60 ncu --clock-control none -k regex:quantize_staged -c 1 --section SourceCounters --section WarpStateStats \
    --section InstructionStats -o $R/src-$1-$2 .lab/p22/xpose-quantize-bench --shape $1 --input bf16 --recipe delayed \
    --outputs $2 --reps 1 --warmup 0 > $R/ncu-$1-$2.log 2>&1
  ncu --import $R/src-$1-$2.ncu-rep --page source --print-source sass --csv > $R/sass-$1-$2.csv 2> $R/sass-$1-$2.err
  ncu --import $R/src-$1-$2.ncu-rep --page details > $R/details-$1-$2.txt 2>&1
  echo "$1 $2: $(wc -l < $R/sass-$1-$2.csv) sass lines; $(grep -E 'Executed Instructions  ' $R/details-$1-$2.txt | head -1)"
done
cd $OUT && tar czf x.tgz r && rm -rf r
