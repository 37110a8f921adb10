#pragma once
// memfd_create and file sealing (F_ADD_SEALS, F_SEAL_SHRINK, ...), which Swift's Glibc module
// leaves out: the content-provider pool is a sealed memfd.
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <sys/mman.h>

static inline int flickd_memfd_create(const char *name, unsigned int flags) { return memfd_create(name, flags); }
static inline int flickd_add_seals(int fd, int seals) { return fcntl(fd, F_ADD_SEALS, seals); }
static inline int flickd_get_seals(int fd) { return fcntl(fd, F_GET_SEALS); }

// udmabuf (linux/udmabuf.h): turns a range of a memfd sealed against shrinking into a dma-buf
// over the same pages, no GPU and no copy (the Wayland window's linux-dmabuf buffers). The
// request number is a function-like macro (_IOW), which Swift cannot import: C makes the call.
#include <linux/udmabuf.h>
#include <stdint.h>
#include <sys/ioctl.h>

/// A dma-buf fd (close-on-exec) over `size` bytes of `memfd` from `offset` (both page-aligned),
/// or -1 with errno set.
static inline int flickd_udmabuf_create(int device, int memfd, uint64_t offset, uint64_t size) {
    struct udmabuf_create request = { .memfd = (uint32_t)memfd, .flags = UDMABUF_FLAGS_CLOEXEC, .offset = offset, .size = size };
    return ioctl(device, UDMABUF_CREATE, &request);
}
