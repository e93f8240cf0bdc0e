#!/bin/bash
# s140 (from the repository root; p1 = tools/prebuild at 15d485e's kernels): the Python extension built here
# against the carried libxpose.a and this machine's jaxlib, the whole pytest suite (xpose.jax's CUDA custom
# calls among it), then the Quantize GPU tests and memcheck on them.
cd "$(dirname "$0")/../../.." ; tar xJf .lab/p1.txz -C .lab
R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 XLA_PYTHON_CLIENT_PREALLOCATE=false
{ nvidia-smi -L; date -u; cat .lab/p1/COMMIT
  python3 -c "import jax, jaxlib, torch; print('jax', jax.__version__, jaxlib.__version__, jax.devices(), 'torch', torch.__version__)"; } > $R/env.txt 2>&1
site=$PWD/build-py/site
t0=$(date +%s)
{ cmake -S python -B build-py -G Ninja -DCMAKE_BUILD_TYPE=Release -DXPOSE_LIBRARY=$PWD/.lab/p1/libxpose.a &&
  cmake --build build-py -j 16 && cmake --install build-py --prefix $site && cp python/xpose/*.py $site/xpose/ &&
  python3 -m pip install --quiet --no-index --no-deps --target $site .deps/wheels/*.whl; } > $R/build.txt 2>&1
echo "build rc $? in $(( $(date +%s) - t0 )) s; $(grep -o 'xpose: the JAX custom call.*\|xpose: no jaxlib.*' $R/build.txt)"
t0=$(date +%s)
(cd build-py && PYTHONPATH=$site HYPOTHESIS_PROFILE=ci timeout 330 python3 -m pytest -q -rs ../python/tests) > $R/pytest.txt 2>&1
echo "pytest rc $? in $(( $(date +%s) - t0 )) s: $(tail -1 $R/pytest.txt)"
grep -E "FAILED|ERROR" $R/pytest.txt | head -10
timeout 60 .lab/p1/xpose_gpu_tests --gtest_filter='Quantize.*' > $R/gtest.txt 2>&1; echo "gtest rc $?: $(grep -E '^\[  (PASSED|FAILED) ' $R/gtest.txt | tr '\n' ' ')"
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 .lab/p1/xpose_gpu_tests --gtest_filter='Quantize.*' > $R/memcheck.txt 2>&1; echo "memcheck rc $?: $(grep -E 'ERROR SUMMARY' $R/memcheck.txt)"
cat $R/env.txt
cd $OUT && tar czf x.tgz r && rm -rf r
