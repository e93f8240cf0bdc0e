// Pretend devices for planning on the host: the facts the rules and plans read, as the
// runtime reports them for each GPU (cudaDeviceGetAttribute).
#pragma once

#include "core/device.hpp"

namespace xpose::testing {

//                              id  cc  SMs  L2 bytes        GB/s  smem/SM  reserved
inline const detail::Device h100{0, 90, 132, 50 << 20,       3352, 233472, 1024};
inline const detail::Device h200{0, 90, 132, 60 << 20,       4800, 233472, 1024};
inline const detail::Device a100{0, 80, 108, 40 << 20,       2039, 167936, 1024};
inline const detail::Device b200{0, 100, 148, 126 << 20,     8000, 233472, 1024};
inline const detail::Device turing{0, 75, 40, 4 << 20,       448,  65536,  0};

}  // namespace xpose::testing
