#pragma once
#include <seccomp.h>
#include <sys/prctl.h>

// prctl is variadic, which Swift cannot call: the one use the sandbox makes of it.
static inline int flickd_set_no_new_privs(void) { return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); }
