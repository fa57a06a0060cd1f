#pragma once
// Arrays between Python and the engine without copies: caller arrays (NumPy, or anything that speaks DLPack:
// CuPy, PyTorch, JAX) become ArrayView3 in place, and engine results become NumPy arrays that own them.

#include "mbir/ArrayView.h"
#include "mbir/DeviceData.h"

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <string>
#include <vector>

namespace mbir::python {

namespace nb = nanobind;

// Any array; its dtype, rank, layout and memory are checked by viewOf so that messages name the argument.
using AnyArray = nb::ndarray<nb::ro>;
using NumpyArray = nb::ndarray<nb::numpy, float, nb::ndim<3>, nb::c_contig>;

// A C-contiguous float32 3-D array in host or CUDA memory, in place; ValueError names `what` otherwise.
// (The Python layer converts other dtypes and layouts once before it calls in.)
inline ArrayView3
viewOf(const AnyArray & array, const char * what)
{
  const std::string name(what);
  if (array.ndim() != 3)
  {
    throw nb::value_error((name + " must be 3-D, got " + std::to_string(array.ndim()) + "-D").c_str());
  }
  if (array.dtype() != nb::dtype<float>())
  {
    throw nb::value_error((name + " must be float32 (the Python layer converts other dtypes)").c_str());
  }
  const std::array<int, 3> shape{ static_cast<int>(array.shape(0)),
                                  static_cast<int>(array.shape(1)),
                                  static_cast<int>(array.shape(2)) };
  if (array.stride(2) != 1 || array.stride(1) != shape[2] || array.stride(0) != std::int64_t(shape[1]) * shape[2])
  {
    if (array.size() > 0 && !(shape[0] == 1 && shape[1] == 1))
    {
      throw nb::value_error((name + " must be C-contiguous (the Python layer copies other layouts)").c_str());
    }
  }
  const auto * data = static_cast<const float *>(array.data());
  if (array.device_type() == nb::device::cpu::value)
  {
    return ArrayView3(data, shape);
  }
  if (array.device_type() == nb::device::cuda::value)
  {
    return ArrayView3::onCuda(data, shape, array.device_id());
  }
  throw nb::value_error((name + " lives on a device kind the engine cannot read (DLPack device type " +
                         std::to_string(array.device_type()) + "); use host memory or a CUDA GPU")
                          .c_str());
}

// A NumPy array that takes over an engine result (no copy).
inline NumpyArray
toNumpy(std::vector<float> && values, const std::array<int, 3> & shape)
{
  auto *            owned = new std::vector<float>(std::move(values));
  nb::capsule       owner(owned, [](void * p) noexcept { delete static_cast<std::vector<float> *>(p); });
  const std::size_t dims[3] = { static_cast<std::size_t>(shape[0]),
                                static_cast<std::size_t>(shape[1]),
                                static_cast<std::size_t>(shape[2]) };
  return NumpyArray(owned->data(), 3, dims, owner);
}

inline std::array<int, 3>
dims(const SinogramShape & s)
{
  return { s.views, s.rows, s.channels };
}

inline std::array<int, 3>
dims(const ReconShape & r)
{
  return { r.rows, r.cols, r.slices };
}

} // namespace mbir::python
