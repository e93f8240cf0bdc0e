#!/bin/bash
# s141 (from the repository root; p2 = tools/prebuild at 15d485e's kernels): xpose-quantize-bench's 240 cases,
# then bench/quantize_peers.py (xpose.quantize beside PyTorch eager and torch.compile, host us a call).
cd "$(dirname "$0")/../../.." ; tar xJf .lab/p2.txz -C .lab
R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 XPOSE_COMMIT=$(cat .lab/p2/COMMIT)
{ nvidia-smi -L; date -u; cat .lab/p2/COMMIT; } > $R/env.txt 2>&1
site=$PWD/build-py/site
if [ ! -f $site/xpose/jax.py ]; then
  { cmake -S python -B build-py -G Ninja -DCMAKE_BUILD_TYPE=Release -DXPOSE_LIBRARY=$PWD/.lab/p2/libxpose.a &&
    cmake --build build-py -j 16 && cmake --install build-py --prefix $site && cp python/xpose/*.py $site/xpose/; } > $R/build.txt 2>&1
  echo "build rc $?"
fi
t0=$(date +%s)
timeout 200 .lab/p2/xpose-quantize-bench --reps 20 --json $R/q.jsonl > $R/q.txt 2>&1
echo "bench rc $? in $(( $(date +%s) - t0 )) s: $(grep -E '^== [0-9]+ cases' $R/q.txt)"
t0=$(date +%s)
PYTHONPATH=$site timeout 330 python3 bench/quantize_peers.py --json $R/peers.jsonl > $R/peers.txt 2>&1
echo "peers rc $? in $(( $(date +%s) - t0 )) s"
cat $R/peers.txt
cd $OUT && tar czf x.tgz r && rm -rf r
