// The registry: every engine this build carries. Tests and the benchmark iterate over it,
// so an engine is tested the day it is listed here.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/engine.hpp"
#include "core/nd_engine.hpp"

namespace xpose::detail {

// In ladder order (slowest technique first), then the CuTe family where built.
const std::vector<const Engine*>& engines();
const Engine* find_engine(std::string_view name);  // nullptr when unknown

// Every name, comma-separated, for error messages.
std::string engine_names();

// The N-D engines, the vector ones first (the N-D rule table's order is its own).
const std::vector<const NdEngine*>& nd_engines();
const NdEngine* find_nd_engine(std::string_view name);  // nullptr when unknown
std::string nd_engine_names();

}  // namespace xpose::detail
