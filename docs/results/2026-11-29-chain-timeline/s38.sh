#!/bin/bash
# chain pass timeline: bytes moved per 4 us and chains ending (lab histogram build)
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
mkdir -p $OUT/r; B=.lab/pbh/xpose-bench
for c in "fp32 8192x4096" "fp16 65536x1024" "c128 262144x32" "fp32 8191x4099" "fp32 1100003x16" "u8 69789x5637" "u8 11877x39936" "fp64 30011x280"; do
  set -- $c; n=$(echo "$1-$2" | tr x X)
  XPOSE_LAB_HIST=1 timeout 60 $B --inplace --dtype $1 --shape $2 --reps 2 --no-progress > $OUT/r/$n.out 2> $OUT/r/$n.hist
  echo "$c rc=$? $(grep -c '^LAB chains' $OUT/r/$n.hist) launches" >> $OUT/r/table
done
cat $OUT/r/table
cd $OUT && tar czf x.tgz r
