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
