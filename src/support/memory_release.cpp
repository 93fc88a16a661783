#include "support/memory_release.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace reshardctl {

void releaseFreedMemory() {
#if defined(__GLIBC__)
  ::malloc_trim(0);
#endif
}

}  // namespace reshardctl
