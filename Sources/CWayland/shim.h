#pragma once
// libwayland-client: the display connection, the core protocol's proxies and their inline
// request wrappers (wayland-client-protocol.h). Imported by FlickWayland only.
#include <wayland-client.h>
