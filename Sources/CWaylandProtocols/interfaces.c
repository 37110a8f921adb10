// Addresses of the interface tables (see CWaylandProtocols.h for why C hands them out).
#include "CWaylandProtocols.h"

const struct wl_interface *flickd_wl_compositor_interface(void) { return &wl_compositor_interface; }
const struct wl_interface *flickd_wl_shm_interface(void) { return &wl_shm_interface; }
const struct wl_interface *flickd_wl_output_interface(void) { return &wl_output_interface; }
const struct wl_interface *flickd_wl_seat_interface(void) { return &wl_seat_interface; }
const struct wl_interface *flickd_xdg_wm_base_interface(void) { return &xdg_wm_base_interface; }
const struct wl_interface *flickd_wp_presentation_interface(void) { return &wp_presentation_interface; }
const struct wl_interface *flickd_wp_viewporter_interface(void) { return &wp_viewporter_interface; }
const struct wl_interface *flickd_zwp_linux_dmabuf_v1_interface(void) { return &zwp_linux_dmabuf_v1_interface; }
const struct wl_interface *flickd_zwp_input_timestamps_manager_v1_interface(void) { return &zwp_input_timestamps_manager_v1_interface; }
const struct wl_interface *flickd_zwp_pointer_gestures_v1_interface(void) { return &zwp_pointer_gestures_v1_interface; }
