"""xpose.jax under jax.jit: the custom call against jnp.transpose, bit for bit, on fresh random
bits of every element type JAX has (bf16 and fp8 included), with vmap and grad, on the JAX
default device (the GPU where there is one)."""
import numpy as np
import pytest

jax = pytest.importorskip("jax", reason="JAX is not installed")
import jax.numpy as jnp  # noqa: E402

import xpose.jax as xj  # noqa: E402

if not xj.available():
    pytest.skip("this xpose was built without jaxlib in its build environment (no custom call)",
                allow_module_level=True)

DTYPES = ["bool", "int8", "uint8", "float8_e4m3fn", "float8_e5m2", "float16", "bfloat16", "int32", "float32",
          "complex64"]
CASES = [((3, 5), (1, 0)), ((2, 3, 4), (2, 0, 1)), ((4, 1, 7, 3), (3, 1, 0, 2)), ((5, 6, 7, 8, 2), (4, 2, 0, 3, 1)),
         ((33, 65), (1, 0)), ((2, 0, 3), (2, 1, 0))]
rng = np.random.default_rng()


def random_array(shape, dtype):
    """Random bits of the dtype, placed on JAX's default device."""
    dtype = jnp.dtype(dtype)
    raw = rng.integers(0, 256, size=int(np.prod(shape)) * dtype.itemsize, dtype=np.uint8)
    if dtype == jnp.bool_:
        raw &= 1
    return jnp.asarray(raw.view(dtype).reshape(shape))


def same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,axes", CASES, ids=lambda c: str(c))
def test_jit_matches_jnp_transpose(shape, axes, dtype):
    x = random_array(shape, dtype)
    f = jax.jit(lambda v: xj.permute_dims(v, axes))
    assert same_bits(f(x), jnp.transpose(x, axes))


def test_matrix_transpose_and_negative_axes():
    x = random_array((3, 4, 5), "float32")
    assert same_bits(jax.jit(xj.matrix_transpose)(x), jnp.matrix_transpose(x))
    assert same_bits(jax.jit(lambda v: xj.permute_dims(v, (-1, 0, -2)))(x), jnp.transpose(x, (2, 0, 1)))
    with pytest.raises(ValueError, match="xpose.jax.permute_dims"):
        xj.permute_dims(x, (0, 0, 1))
    with pytest.raises(ValueError, match="at least 2 axes"):
        xj.matrix_transpose(jnp.zeros(3))


def test_vmap_keeps_the_batch_axes_in_front():
    x = random_array((6, 3, 4, 5), "bfloat16")
    f = jax.jit(jax.vmap(lambda v: xj.permute_dims(v, (2, 0, 1))))
    assert same_bits(f(x), jnp.transpose(x, (0, 3, 1, 2)))
    g = jax.vmap(jax.vmap(xj.matrix_transpose))  # two batch axes
    y = random_array((2, 3, 4, 5), "float32")
    assert same_bits(g(y), jnp.swapaxes(y, -1, -2))


def test_grad_is_the_inverse_permutation():
    x = random_array((3, 4, 5), "float32").astype(jnp.float32)
    x = jnp.where(jnp.isfinite(x), x, 0.0)
    w = random_array((5, 3, 4), "float32")
    w = jnp.where(jnp.isfinite(w), w, 0.0)
    loss = lambda v: jnp.sum(xj.permute_dims(v, (2, 0, 1)) * w)  # noqa: E731
    assert same_bits(jax.jit(jax.grad(loss))(x), jnp.transpose(w, (1, 2, 0)))


def test_the_package_functions_take_jax_arrays_eagerly_and_under_jit():
    """xpose.permute_dims / transpose on a JAX array: the custom call, the result a JAX array on
    x's device (bf16 and fp8 too, which DLPack's NumPy side cannot name)."""
    import xpose

    for dtype in ("bfloat16", "float8_e4m3fn", "float32"):
        x = random_array((3, 17, 29), dtype)
        y = xpose.permute_dims(x, (2, 0, 1))
        assert isinstance(y, jax.Array) and y.devices() == x.devices() and same_bits(y, jnp.transpose(x, (2, 0, 1)))
        assert same_bits(xpose.transpose(x), jnp.swapaxes(x, -1, -2))
        assert same_bits(jax.jit(xpose.matrix_transpose)(x), jnp.swapaxes(x, -1, -2))
    with pytest.raises(TypeError, match="immutable"):
        xpose.permute_dims(x, (2, 0, 1), out=x)


def test_random_permutations_under_jit():
    """Hypothesis draws: rank 1-6, extents 0-9, any permutation, every element type, the custom
    call under jit bit for bit jnp.transpose."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    @st.composite
    def requests(draw):
        rank = draw(st.integers(1, 6))
        shape = tuple(draw(st.lists(st.integers(0, 9), min_size=rank, max_size=rank)))
        axes = tuple(draw(st.permutations(range(rank))))
        return shape, axes, draw(st.sampled_from(DTYPES))

    @settings(max_examples=150, deadline=None, derandomize=True)
    @given(requests())
    def check(request):
        shape, axes, dtype = request
        x = random_array(shape, dtype)
        assert same_bits(jax.jit(lambda v: xj.permute_dims(v, axes))(x), jnp.transpose(x, axes))

    check()


QUANTIZE_RECIPES = [dict(scaling="current"), dict(scaling="delayed", scale=0.75),
                    dict(scaling="blocks", block=(1, 128)), dict(scaling="blocks", block=(128, 128), pow2_scales=True),
                    dict(scaling="mx"), dict(format="e5m2", scaling="mx", scale_layout="row_major"),
                    dict(scaling="blocks", block=(1, 64), scale_layout="column_major")]


def quantize_input(shape, dtype):
    """Normal values of a wide range of magnitudes with a few edge values (0, -0, the dtype's
    max, subnormals, inf) mixed in, as a NumPy array of the dtype (ml_dtypes' bfloat16)."""
    import ml_dtypes

    np_dtype = ml_dtypes.bfloat16 if dtype == "bfloat16" else np.dtype(dtype)
    x = rng.standard_normal(shape) * np.exp2(rng.integers(-12, 12, size=shape))
    flat = x.reshape(-1)
    if flat.size:
        info = ml_dtypes.finfo(np_dtype)
        edges = np.array([0.0, -0.0, float(info.max), float(info.smallest_subnormal), -np.inf])
        at = rng.integers(0, flat.size, size=min(flat.size, len(edges)))
        flat[at] = edges[: len(at)]
    return x.astype(np_dtype)


@pytest.mark.parametrize("recipe", QUANTIZE_RECIPES, ids=lambda r: ",".join(f"{k}={v}" for k, v in r.items()))
@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16"])
def test_quantize_is_xpose_quantize_bit_for_bit(recipe, dtype):
    """xpose.jax.quantize under jit on JAX's default device (the GPU where there is one) against
    xpose.quantize's CPU reference on the same values: every output, padding included."""
    import xpose

    for shape in [(1, 1), (127, 129), (300, 33), (256, 384), (0, 5)]:
        x = quantize_input(shape, dtype)
        want = xpose.quantize(x, **recipe)
        got = jax.jit(lambda v: xj.quantize(v, **recipe))(jnp.asarray(x))
        for name, w, g in zip(want._fields, want, got):
            assert g is not None and g.devices() == jnp.asarray(x).devices(), name
            assert same_bits(np.asarray(g).view(np.uint8) if g.dtype.itemsize == 1 else g, w), (shape, name)
        one = xj.quantize(jnp.asarray(x), outputs=("data_t",), **recipe)  # eagerly; one output (and current's amax)
        assert one.data is None and (one.amax is None) == (recipe["scaling"] != "current")
        assert same_bits(np.asarray(one.data_t).view(np.uint8), want.data_t)


def test_the_package_quantize_takes_jax_arrays():
    import xpose

    x = quantize_input((40, 70), "bfloat16")
    got, want = xpose.quantize(jnp.asarray(x), scaling="mx"), xpose.quantize(x, scaling="mx")
    assert isinstance(got.data, jax.Array) and same_bits(np.asarray(got.data).view(np.uint8), want.data)


def test_quantize_vmap_grad_and_errors():
    x = jnp.asarray(quantize_input((3, 40, 70), "bfloat16"))
    batched = jax.jit(jax.vmap(lambda v: xj.quantize(v, scaling="mx")))(x)
    for k in range(3):
        one = xj.quantize(x[k], scaling="mx")
        assert all(same_bits(b[k], o) for b, o in zip(batched, one))
    y = jnp.asarray(quantize_input((64, 96), "float32"))
    assert not bool(jax.grad(lambda v: xj.quantize(v).amax)(y).any())  # no gradient flows
    with pytest.raises(ValueError, match="xpose.jax.quantize: x must be a matrix"):
        xj.quantize(x)
    with pytest.raises(ValueError, match="xpose.jax.quantize: format"):
        xj.quantize(y, format="e3m4")
    with pytest.raises(TypeError, match="xpose.jax.quantize: x is int32"):
        xj.quantize(jnp.zeros((4, 4), jnp.int32))


def test_quantize_random_requests():
    """Hypothesis draws: shapes 0-300 a side, any recipe, input type, format and output set,
    xpose.jax.quantize under jit bit for bit xpose.quantize's CPU reference."""
    import xpose
    from hypothesis import given, settings
    from hypothesis import strategies as st

    outputs = ("data", "data_t", "scales", "scales_t", "amax")

    @st.composite
    def requests(draw):
        shape = (draw(st.integers(0, 300)), draw(st.integers(0, 300)))
        recipe = dict(draw(st.sampled_from(QUANTIZE_RECIPES)))
        recipe["format"] = draw(st.sampled_from(["e4m3", "e5m2"]))
        recipe["outputs"] = tuple(draw(st.lists(st.sampled_from(outputs), min_size=1, max_size=5, unique=True)))
        return shape, recipe, draw(st.sampled_from(["float32", "bfloat16", "float16"]))

    @settings(max_examples=60, deadline=None, derandomize=True)
    @given(requests())
    def check(request):
        shape, recipe, dtype = request
        x = quantize_input(shape, dtype)
        want = xpose.quantize(x, **recipe)
        got = jax.jit(lambda v: xj.quantize(v, **recipe))(jnp.asarray(x))
        for name, w, g in zip(want._fields, want, got):
            assert (w is None) == (g is None), name
            if g is not None:
                assert same_bits(np.asarray(g).view(np.uint8) if g.dtype.itemsize == 1 else g, w), (shape, name)

    check()


def test_quantize_target_refuses_results_sized_short():
    """The custom call target is anyone's to call: results smaller than what it writes are refused."""
    xj._register()
    x = jnp.ones((64, 64), jnp.float32)
    results = [jax.ShapeDtypeStruct((64, 63), jnp.float8_e4m3fn)] + [jax.ShapeDtypeStruct((0,), jnp.float32)] * 4
    call = jax.ffi.ffi_call("xpose_quantize", results)
    with pytest.raises(Exception, match="data holds 4032 bytes; the call writes 4096"):
        jax.block_until_ready(call(x, format=np.int64(0), scaling=np.int64(0), scale_layout=np.int64(0),
                                   block_rows=np.int64(1), block_cols=np.int64(128), pow2=False,
                                   scale=np.float32(1.0), want=np.int64(1)))
