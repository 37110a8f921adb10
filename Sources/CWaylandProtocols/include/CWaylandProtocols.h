#pragma once
// The extension protocols flickd speaks, as wayland-scanner generates them
// (scripts/wayland-protocols.sh; the generated files are committed, do not edit them).
#include <wayland-client.h>
#include "xdg-shell-client-protocol.h"
#include "presentation-time-client-protocol.h"
#include "viewporter-client-protocol.h"
#include "linux-dmabuf-unstable-v1-client-protocol.h"
#include "input-timestamps-unstable-v1-client-protocol.h"
#include "pointer-gestures-unstable-v1-client-protocol.h"

// The interface tables, for wl_registry_bind. They are C `const` globals, which Swift imports as
// values: taking their address from Swift may yield a temporary copy's, so C hands it out.
const struct wl_interface *flickd_wl_compositor_interface(void);
const struct wl_interface *flickd_wl_shm_interface(void);
const struct wl_interface *flickd_wl_output_interface(void);
const struct wl_interface *flickd_wl_seat_interface(void);
const struct wl_interface *flickd_xdg_wm_base_interface(void);
const struct wl_interface *flickd_wp_presentation_interface(void);
const struct wl_interface *flickd_wp_viewporter_interface(void);
const struct wl_interface *flickd_zwp_linux_dmabuf_v1_interface(void);
const struct wl_interface *flickd_zwp_input_timestamps_manager_v1_interface(void);
const struct wl_interface *flickd_zwp_pointer_gestures_v1_interface(void);
