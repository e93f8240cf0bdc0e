#!/bin/bash
# s143 (from the repository root; p3 = tools/prebuild at 23beb4c: xpose.quantize's host cost trimmed): the
# Quantize GPU tests and memcheck on them, the Python quantize and JAX tests, --check on a padded and an unpadded
# shape, the host-time probe twice, quantize_peers; then p4 (branch exp-shared-codes: data_t's codes turned from
# data's for one-factor recipes of 2-byte inputs): its Quantize GPU tests, and the bench p3, p4, p4, p3.
cd "$(dirname "$0")/../../.." ; tar xJf .lab/p3.txz -C .lab; tar xJf .lab/p4.txz -C .lab
R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 XPOSE_COMMIT=$(cat .lab/p3/COMMIT) XLA_PYTHON_CLIENT_PREALLOCATE=false
site=$PWD/build-py/site; rm -rf build-py
{ cmake -S python -B build-py -G Ninja -DCMAKE_BUILD_TYPE=Release -DXPOSE_LIBRARY=$PWD/.lab/p3/libxpose.a &&
  cmake --build build-py -j 16 && cmake --install build-py --prefix $site && cp python/xpose/*.py $site/xpose/ &&
  python3 -m pip install --quiet --no-index --no-deps --target $site .deps/wheels/*.whl; } > $R/build.txt 2>&1
echo "build rc $?"
timeout 60 .lab/p3/xpose_gpu_tests --gtest_filter='Quantize.*' > $R/gtest.txt 2>&1; echo "gtest rc $?: $(grep -E '^\[  (PASSED|FAILED) ' $R/gtest.txt | tr '\n' ' ')"
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 .lab/p3/xpose_gpu_tests --gtest_filter='Quantize.*' > $R/memcheck.txt 2>&1; echo "memcheck rc $?: $(grep -E 'ERROR SUMMARY' $R/memcheck.txt)"
for s in 1000x3000 4096x4096; do timeout 100 .lab/p3/xpose-quantize-bench --check --shape $s --reps 3 > $R/check-$s.txt 2>&1; echo "check $s rc $?: $(grep -c passed $R/check-$s.txt) passed"; done
(cd build-py && PYTHONPATH=$site HYPOTHESIS_PROFILE=ci timeout 150 python3 -m pytest -q -rs ../python/tests/test_inplace_quantize.py ../python/tests/test_jax.py) > $R/pytest.txt 2>&1
echo "pytest rc $?: $(tail -1 $R/pytest.txt)"
for k in 1 2; do PYTHONPATH=$site timeout 100 python3 tools/experiments/python_boundary/quantize_breakdown.py > $R/breakdown-$k.txt 2>&1; echo "rc $?"; done
PYTHONPATH=$site timeout 200 python3 bench/quantize_peers.py --json $R/peers.jsonl > $R/peers.txt 2>&1; echo "peers rc $?"
timeout 60 .lab/p4/xpose_gpu_tests --gtest_filter='Quantize.*' > $R/gtest-p4.txt 2>&1; echo "p4 gtest rc $?: $(grep -E '^\[  (PASSED|FAILED) ' $R/gtest-p4.txt | tr '\n' ' ')"
for v in p3 p4 p4 p3; do timeout 60 .lab/$v/xpose-quantize-bench --reps 20 --json $R/$v.jsonl > $R/$v-$RANDOM.txt 2>&1; echo "$v rc $?"; done
cat $R/breakdown-*.txt $R/peers.txt
cd $OUT && tar czf x.tgz r && rm -rf r
