/* The C ABI from C: the header compiles as C, and the calls that need no GPU behave. */
#include <stdio.h>
#include <string.h>

#include "xpose/xpose.h"

static int failed = 0, passed = 0;
#define CHECK(cond)                                              \
  do {                                                           \
    if (cond) {                                                  \
      ++passed;                                                  \
    } else {                                                     \
      ++failed;                                                  \
      fprintf(stderr, "%s:%d: failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                            \
  } while (0)

int main(void) {
  float src[6] = {1, 2, 3, 4, 5, 6}, dst[6] = {0};
  CHECK(strcmp(xpose_status_string(XPOSE_SUCCESS), "success") == 0);
  {
    char version[32];
    snprintf(version, sizeof version, "%d.%d.%d", XPOSE_VERSION_MAJOR, XPOSE_VERSION_MINOR, XPOSE_VERSION_PATCH);
    CHECK(strcmp(xpose_version(), version) == 0); /* exported by the shared library */
  }
  CHECK(xpose_transpose(src, dst, 2, 3, 3, 0, 0, 1, 0, 0, 0) == XPOSE_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(xpose_last_error(), "elem_bytes is 3") != NULL);
  CHECK(xpose_transpose_with("no_such_kernel", src, dst, 2, 3, 4, 0, 0, 1, 0, 0, 0) == XPOSE_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(xpose_last_error(), "unknown kernel 'no_such_kernel'") != NULL);
  CHECK(xpose_transpose(NULL, NULL, 0, 3, 4, 0, 0, 1, 0, 0, 0) == XPOSE_SUCCESS);
  CHECK(dst[0] == 0 && dst[5] == 0);
  {
    xpose_plan_t plan = NULL;
    const int64_t extents[2] = {0, 3};
    const int perm[2] = {1, 0};
    CHECK(xpose_plan_transpose(&plan, NULL, src, dst, 2, 3, 3, 0, 0, 1, 0, 0) == XPOSE_ERROR_INVALID_ARGUMENT);
    CHECK(plan == NULL);
    CHECK(xpose_plan_permute(&plan, NULL, NULL, NULL, 2, extents, perm, 4, NULL, NULL) == XPOSE_SUCCESS);
    CHECK(xpose_plan_execute(plan, NULL, NULL, 0) == XPOSE_SUCCESS);
    CHECK(strstr(xpose_plan_explain(plan), "nothing to do") != NULL);
    xpose_plan_destroy(plan);
  }
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
