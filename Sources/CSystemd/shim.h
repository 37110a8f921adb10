#pragma once
#include <systemd/sd-event.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>
#include <systemd/sd-device.h>
// The kernel's own device events (NETLINK_KOBJECT_UEVENT), heard directly where no udev daemon
// passes them on to sd-device (KernelUevents).
#include <sys/socket.h>
#include <linux/netlink.h>
