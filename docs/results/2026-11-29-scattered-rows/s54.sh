#!/bin/bash
# A/B: aligned_stores kernels __launch_bounds__(256, 8) (32 registers, small spills) against HEAD (40-48)
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar xJf .lab/pby.txz -C .lab; mkdir -p $OUT/r; P=.lab/pby
S=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
for b in new b8 new b8; do timeout 150 $P/$b --random 250 --seed $S --reps 5 --no-host-time --json $OUT/r/nd-$b-$S.jsonl > $OUT/r/nd-$b-$S.txt 2>&1; echo "N-D $b seed $S rc $? $(grep -E 'median' $OUT/r/nd-$b-$S.txt | tail -1)" >> $OUT/r/table; done
S=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
for b in new2d b8_2d; do timeout 150 $P/$b --random 200 --seed $S --kernel auto --no-peers --reps 5 --json $OUT/r/2d-$b-$S.jsonl > $OUT/r/2d-$b-$S.txt 2>&1; echo "2-D $b seed $S rc $? $(grep -E 'median' $OUT/r/2d-$b-$S.txt | tail -1)" >> $OUT/r/table; done
cat $OUT/r/table
cd $OUT && tar czf x.tgz r && rm -rf r
