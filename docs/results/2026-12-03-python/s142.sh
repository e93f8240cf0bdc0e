#!/bin/bash
# s142 (from the repository root; p2 as s141): where xpose.quantize's host time goes from PyTorch
# (tools/experiments/python_boundary/quantize_breakdown.py), twice.
cd "$(dirname "$0")/../../.." ; tar xJf .lab/p2.txz -C .lab
R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
site=$PWD/build-py/site
if [ ! -f $site/xpose/jax.py ]; then
  { cmake -S python -B build-py -G Ninja -DCMAKE_BUILD_TYPE=Release -DXPOSE_LIBRARY=$PWD/.lab/p2/libxpose.a &&
    cmake --build build-py -j 16 && cmake --install build-py --prefix $site && cp python/xpose/*.py $site/xpose/; } > $R/build.txt 2>&1
  echo "build rc $?"
fi
for k in 1 2; do PYTHONPATH=$site timeout 200 python3 tools/experiments/python_boundary/quantize_breakdown.py > $R/breakdown-$k.txt 2>&1; echo "rc $?"; done
cat $R/breakdown-*.txt
cd $OUT && tar czf x.tgz r && rm -rf r
