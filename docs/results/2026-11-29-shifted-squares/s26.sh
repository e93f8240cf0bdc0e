#!/bin/bash
# HEAD: gpu-check --inplace (tests, sanitizers, case list, 40 random draws), then the fixed seed's draws
tar xJf .lab/pb26.txz
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
XPOSE_PREBUILT=prebuilt XPOSE_RANDOM=40 timeout 330 tools/gpu-check --inplace > $OUT/gpu-check.txt 2>&1; echo "gpu-check rc $?"
tail -25 $OUT/gpu-check.txt
timeout 200 prebuilt/xpose-bench --inplace --random 40 --seed 3822984408183166923 --check --no-progress --json $OUT/random-fixed.jsonl > $OUT/random-fixed.txt 2>&1; echo "fixed rc $?"
grep -A4 '^== in place, %' $OUT/random-fixed.txt
