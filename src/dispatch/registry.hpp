// The registry: every engine this build carries, in one list. Tests and the benchmark iterate
// over it, so an engine is tested the day it is listed here.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/engine.hpp"

namespace xpose::detail {

// The transpose engines in ladder order (slowest technique first, then the CuTe family where
// built), then the N-D engines, the vector ones first (the N-D rule table's order is its own).
const std::vector<const Engine*>& engines();

// Those that move `input`, in that order.
const std::vector<const Engine*>& engines(Input input);
const Engine* find_engine(std::string_view name, Input input);  // nullptr when unknown

// Their names, comma-separated, for error messages.
std::string engine_names(Input input);

}  // namespace xpose::detail
