// The version is defined once, in xpose.h's macros: xpose_version() is them joined.
#include <gtest/gtest.h>

#include <string>

#include "xpose/xpose.h"

TEST(Version, IsTheMacrosJoined) {
  const std::string expected = std::to_string(XPOSE_VERSION_MAJOR) + "." + std::to_string(XPOSE_VERSION_MINOR) +
                               "." + std::to_string(XPOSE_VERSION_PATCH);
  EXPECT_EQ(std::string(xpose_version()), expected);
}
