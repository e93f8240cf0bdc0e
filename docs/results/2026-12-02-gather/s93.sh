#!/bin/bash
# s93: the whole GPU suite at 8dec66e (prebuilt), then tools/gpu-check --report
cd "$(dirname "$0")/.." ; tar xJf .lab/p93.txz -C .lab
R=$OUT/r; mkdir -p $R
LD_LIBRARY_PATH=/usr/local/cuda/lib64:$PWD/.lab/p93 timeout 450 .lab/p93/xpose_gpu_tests --gtest_brief=1 > $R/tests.log 2>&1; echo "suite rc $? $(tail -3 $R/tests.log | tr '\n' ' ')" > $R/head
cat $R/head
cd $OUT && tar czf suite.tgz r && rm -rf r
