#!/bin/bash
tar xJf .lab/pb23.txz
mkdir -p $OUT/r
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
for round in 1 2; do
for s in u8:8193x8193 u8:16383x16383 fp16:8191x8191 fp16:11587x11587; do
  d=${s%%:*}; sh=${s#*:}; line="$d $sh"
  for b in v0 early split split3; do
    prebuilt/$b --inplace --dtype $d --shape $sh --reps 10 --check --no-progress > $OUT/r/$b-$d-$sh-$round.txt 2>&1
    line="$line $b $(grep -E '^  inplace ' $OUT/r/$b-$d-$sh-$round.txt | awk '{print $6, $8}')"
  done
  echo "$line" | tee -a $OUT/r/table
done; done
cd $OUT && tar czf x.tgz r && rm -rf r
