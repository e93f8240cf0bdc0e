#!/bin/bash
# s118 (run as one command from the repository root with .lab/p118.txz: xpose_gpu_tests at c0b0ac8, stripped)
tar xJf .lab/p118.txz -C .lab && export LD_LIBRARY_PATH=/usr/local/cuda/lib64 &&
  timeout 100 .lab/p118/xpose_gpu_tests --gtest_filter='Permute.*:Plan.*:*ligned*:BadInputOnDevice.*'
