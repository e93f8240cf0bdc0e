#!/bin/bash
# permute_row_vectors: partial granules as vectors + store_part (e4: 4 a lane, 98 regs; e2: 2, 64), b (warp rows, 2 a lane, element edges) against old
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
mkdir -p $OUT/r; P=.lab/pbr
echo "case | old row_vectors / old auto | e4 | e2 | b  (% copy; check)" > $OUT/r/table
for c in "u8 1091,433,1135 1,0,2" "u8 100,675,315 1,0,2" "u8 389,1522,173 1,0,2" "u8 2498,315,21,7 1,2,0,3" "u8 335,614,1911 1,0,2" "fp16 1209,514,63 1,0,2" "fp16 1264,1374,149 1,0,2" "fp16 23,53,3127,33 1,2,0,3" "fp32 825,3171,7 1,0,2" "fp32 5,3565,902,7 0,2,1,3" "u8 244,42,3630,6 0,2,1,3" "fp16 6,473,135,57 2,1,0,3" "u8 5,56,1859,2,134 3,2,0,1,4" "fp64 4000,700,45 1,0,2" "c128 300,2000,11 1,0,2" "u8 16,4096,4096 1,0,2" "fp32 64,1024,1030 1,0,2"; do
  set -- $c; line="$1 $2 ($3)"
  for b in pb-old pb-e4 pb-e2 pb-b; do
    k="--kernel permute_row_vectors"; [ $b = pb-old ] && k="--kernel permute_row_vectors auto"
    timeout 60 $P/$b --dtype $1 --extents $2 --perm $3 --reps 10 --no-host-time --check $k > $OUT/r/$b-$1-$2.txt 2>&1
    line="$line | $(grep -E '^  (auto|permute_row_vectors) ' $OUT/r/$b-$1-$2.txt | awk '{printf "%s %s ", $6, $NF}')"
  done
  echo "$line" >> $OUT/r/table
done
cat $OUT/r/table
cd $OUT && tar czf x.tgz r && rm -rf r
