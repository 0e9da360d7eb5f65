#include <wayland-client.h>
#include <xkbcommon/xkbcommon.h>
