#include "dispatch/registry.hpp"

#include "engines/engines.hpp"

namespace xpose::detail {

const std::vector<const Engine*>& engines() {
  using namespace xpose::engines;
  static const std::vector<const Engine*> all = {
      &naive_read,
      &naive_write,
      &smem,
      &smem_padded,
      &smem_swizzled,
      &vec_swizzled,
      &skinny,
      &short_lines,
      &tiny_batched,
      &aligned_stores,
      &tma_plain,
      &tma_swizzle128,
      &tma_batched,
      &tma_pipeline,
#ifdef XPOSE_HAVE_CUTE
      &cute_naive_read,
      &cute_naive_write,
      &cute_smem_conflict_read,
      &cute_smem_conflict_write,
      &cute_padded,
      &cute_swizzled,
      &cute_vectorized,
      &cute_vectorized_swizzled,
      &cute_tma,
#endif
      &permute_vec_regs,
      &permute_vec_tiled,
      &permute_aligned_stores,
      &permute_row_vectors,
      &permute_packed,
      &permute_tiled,
      &permute_rows,
      &permute_gather,
  };
  return all;
}

const std::vector<const Engine*>& engines(Input input) {
  static const auto of = [](Input in) {
    std::vector<const Engine*> list;
    for (const Engine* e : engines())
      if (e->input == in) list.push_back(e);
    return list;
  };
  static const std::vector<const Engine*> transpose = of(Input::transpose), nd = of(Input::nd_form);
  return input == Input::transpose ? transpose : nd;
}

const Engine* find_engine(std::string_view name, Input input) {
  for (const Engine* e : engines(input))
    if (name == e->name) return e;
  return nullptr;
}

std::string engine_names(Input input) {
  std::string names;
  for (const Engine* e : engines(input)) names += (names.empty() ? "" : ", ") + std::string(e->name);
  return names;
}

}  // namespace xpose::detail
