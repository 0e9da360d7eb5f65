// libdeflate decompresses a whole gzip member in one call, faster than zlib's streaming inflate.
#if __has_include(<libdeflate.h>)
#include <libdeflate.h>
#else
#error "libdeflate.h not found: install the Debian package libdeflate-dev (./scripts/install-deps.sh installs every build dependency)"
#endif
