// `xpose-bench --rules`: the automatic choice's rule table and tuning records as the
// markdown the README shows, generated from the library's own data (xpose::rules(),
// xpose::tuning_records()), so the README's copy can be checked against it.
#pragma once

#include <string>

namespace xpose::bench {

std::string rules_markdown();

}  // namespace xpose::bench
