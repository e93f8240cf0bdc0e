"""Arrays of other libraries that speak DLPack (JAX and the like), on the host: a stand-in
library whose arrays only speak DLPack goes in, and its own array type comes back with
NumPy's result, bit for bit; what such a call cannot take is refused in one line."""
import sys
import types

import numpy as np
import pytest

import xpose

fakelib = types.ModuleType("fakelib")


class FakeArray:
    """An array type xpose does not know, which speaks DLPack only."""

    def __init__(self, a):
        self.a = a

    def __dlpack__(self, **kwargs):
        return self.a.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.a.__dlpack_device__()


FakeArray.__module__ = "fakelib"
fakelib.FakeArray = FakeArray
fakelib.from_dlpack = lambda obj: FakeArray(np.from_dlpack(obj))


@pytest.fixture(autouse=True)
def registered():
    sys.modules["fakelib"] = fakelib
    yield
    del sys.modules["fakelib"]


def bits(a):
    return np.ascontiguousarray(a).view(np.uint8).tobytes()


def test_transpose_and_permute_come_back_in_the_callers_library():
    rng = np.random.default_rng()
    a = rng.integers(0, 2**31, size=(3, 17, 29), dtype=np.int32).view(np.float32)
    y = xpose.transpose(FakeArray(a))
    assert isinstance(y, FakeArray) and bits(y.a) == bits(np.swapaxes(a, -1, -2))
    z = xpose.permute(FakeArray(a), (2, 0, 1))
    assert isinstance(z, FakeArray) and bits(z.a) == bits(np.transpose(a, (2, 0, 1)))


def test_what_a_foreign_array_cannot_take_is_refused():
    a = np.zeros((4, 5), np.float32)
    with pytest.raises(TypeError, match="^xpose.transpose: out must be a NumPy, PyTorch or CuPy array; x is a fakelib"):
        xpose.transpose(FakeArray(a), out=np.zeros((5, 4), np.float32))

    class Elsewhere(FakeArray):
        def __dlpack_device__(self):
            return (14, 0)  # a device xpose does not serve

    Elsewhere.__module__ = "fakelib"
    with pytest.raises(ValueError, match="^xpose.permute: x \\(fakelib\\) lives on DLPack device type 14"):
        xpose.permute(Elsewhere(a), (1, 0))


def test_a_broken_dlpack_device_is_refused_in_one_line():
    """Issue 30: a malformed __dlpack_device__ gave a bare `ValueError: too many values to unpack`."""
    def boom():
        raise RuntimeError("device\nunknown")

    a = np.zeros((4, 5), np.float32)
    for device in [lambda: (1, 0, 0), lambda: [1, 0], lambda: None, lambda: ("1", 0), lambda: (1.0, 0), boom]:
        x = FakeArray(a)
        x.__dlpack_device__ = device
        for call in (lambda: xpose.transpose(x), lambda: xpose.permute(x, (1, 0))):
            with pytest.raises(TypeError, match="__dlpack_device__") as info:
                call()
            message = str(info.value)
            assert message.startswith(("xpose.transpose: x (fakelib) ", "xpose.permute: x (fakelib) ")), message
            assert "\n" not in message


def test_an_array_dlpack_cannot_export_is_refused_in_one_line():
    x = FakeArray(np.arange(12, dtype=">i4").reshape(3, 4))  # NumPy exports native byte order only
    with pytest.raises(TypeError, match="^xpose.transpose: x \\(fakelib\\) cannot be read through DLPack: ") as info:
        xpose.transpose(x)
    assert "\n" not in str(info.value)


def test_out_refusal_names_where_the_result_comes_back():
    """Issue 30: for x of a type made outside any module the refusal said the result "comes back
    as a builtins array"; it comes back as the NumPy array xpose made."""
    Loose = type("Loose", (FakeArray,), {"__module__": "builtins"})
    a = np.zeros((4, 5), np.float32)
    with pytest.raises(TypeError) as info:
        xpose.transpose(Loose(a), out=np.zeros((5, 4), np.float32))
    message = str(info.value)
    assert message.startswith("xpose.transpose: out must be a NumPy, PyTorch or CuPy array; x is a Loose: ")
    assert "builtins" not in message and "comes back as a NumPy array" in message and "\n" not in message
    y = xpose.transpose(Loose(a))
    assert type(y) is np.ndarray and bits(y) == bits(a.T)


def test_ndarray_subclasses_are_not_foreign():
    """Issue 30: an ndarray subclass made outside NumPy went through DLPack: a byte-swapped one
    raised a bare BufferError, and with out= it was refused as "a builtins array"."""
    Sub = type("Sub", (np.ndarray,), {"__module__": "builtins"})
    rng = np.random.default_rng()
    a = rng.integers(-2**31, 2**31, size=(3, 7, 5), dtype=np.int64).astype(">i4")
    x = a.view(Sub)
    y = xpose.transpose(x)
    assert type(y) is Sub and y.dtype == np.dtype(">i4") and bits(y) == bits(np.swapaxes(a, -1, -2))
    out = np.full((3, 5, 7), 7, ">i4").view(Sub)
    assert xpose.transpose(x, out=out) is out and bits(out) == bits(np.swapaxes(a, -1, -2))
    out = np.full((5, 3, 7), 7, ">i4")
    assert xpose.permute(x, (2, 0, 1), out=out) is out and bits(out) == bits(np.transpose(a, (2, 0, 1)))
