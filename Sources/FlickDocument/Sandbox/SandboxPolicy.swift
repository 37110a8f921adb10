import CSeccomp
import Glibc

/// What the helper may ask of the kernel once confined: what parsing and drawing need, and the
/// provider exchange on descriptors it already holds (docs/documents.md lists it with the reasons).
/// Everything else kills the process; no network (`socket`, `connect`, `bind`), no `execve`, no
/// `ptrace`, no `setrlimit`/`prlimit64`, no new processes.
public enum SandboxPolicy {
    /// One rule: a call, what happens, and the conditions on its arguments (all must hold).
    public struct Rule: Sendable {
        /// The system call's name, as libseccomp resolves it.
        public var call: String
        /// `SCMP_ACT_ALLOW`, or `SCMP_ACT_ERRNO(e)`.
        public var action: UInt32
        /// Conditions on the arguments.
        public var conditions: [scmp_arg_cmp]
    }

    /// Calls allowed with any arguments.
    public static let allowed = [
        // The provider exchange on the socket flickd passed, and the documents' descriptors.
        "read", "pread64", "readv", "write", "writev", "recvfrom", "recvmsg", "sendto", "sendmsg", "poll", "ppoll",
        "close", "lseek", "fstat", "newfstatat", "statx", "fcntl", "dup", "getdents64", "readlink", "readlinkat",
        // GLib's logging asks whether stderr is the journal's socket.
        "getpeername",
        "access", "faccessat", "faccessat2",
        // Memory: allocation, the pool's mapping, fonts mapped by FreeType.
        "mmap", "munmap", "mremap", "mprotect", "madvise", "brk",
        // Threads, should a library start any, and their locks; time for the libraries' clocks.
        "futex", "set_robust_list", "rseq", "sched_yield", "sched_getaffinity", "gettid", "getpid", "tgkill",
        "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "sigaltstack", "clock_gettime", "clock_nanosleep",
        "nanosleep", "gettimeofday", "getrandom", "sysinfo", "uname", "getuid", "geteuid", "getgid", "getegid",
        "exit", "exit_group", "restart_syscall", "prctl", "arch_prctl", "set_tid_address", "getrlimit", "eventfd2",
    ]

    /// Every rule the filter is made of.
    public static var rules: [Rule] {
        let allow = UInt32(SCMP_ACT_ALLOW)
        var rules = allowed.map { Rule(call: $0, action: allow, conditions: []) }
        // Files are opened for reading only (fontconfig's configuration and caches, the fonts
        // FreeType reads): any flag that could write makes the open fail with EACCES instead.
        let writing = UInt64(O_ACCMODE | O_CREAT | O_TRUNC | O_APPEND)
        rules.append(Rule(call: "openat", action: allow, conditions: [scmp_arg_cmp(arg: 2, op: SCMP_CMP_MASKED_EQ, datum_a: writing, datum_b: 0)]))
        rules.append(Rule(call: "openat", action: errno(EACCES),
                          conditions: [scmp_arg_cmp(arg: 2, op: SCMP_CMP_MASKED_EQ, datum_a: UInt64(O_ACCMODE), datum_b: UInt64(O_WRONLY))]))
        rules.append(Rule(call: "openat", action: errno(EACCES),
                          conditions: [scmp_arg_cmp(arg: 2, op: SCMP_CMP_MASKED_EQ, datum_a: UInt64(O_ACCMODE), datum_b: UInt64(O_RDWR))]))
        rules.append(Rule(call: "openat", action: errno(EACCES),
                          conditions: [scmp_arg_cmp(arg: 2, op: SCMP_CMP_MASKED_EQ, datum_a: UInt64(O_CREAT), datum_b: UInt64(O_CREAT))]))
        // GLib asks whether stderr is a terminal (isatty: ioctl TCGETS) before it writes a
        // warning: "no" without killing; every other ioctl kills.
        rules.append(Rule(call: "ioctl", action: errno(ENOTTY), conditions: [scmp_arg_cmp(arg: 1, op: SCMP_CMP_EQ, datum_a: 0x5401, datum_b: 0)]))
        // Threads but never processes: clone only with CLONE_THREAD; clone3 (whose flags libseccomp
        // cannot see) says ENOSYS, so glibc falls back to clone.
        let thread: UInt64 = 0x0001_0000  // CLONE_THREAD (sched.h, hidden from Swift without _GNU_SOURCE)
        rules.append(Rule(call: "clone", action: allow, conditions: [scmp_arg_cmp(arg: 0, op: SCMP_CMP_MASKED_EQ, datum_a: thread, datum_b: thread)]))
        rules.append(Rule(call: "clone3", action: errno(ENOSYS), conditions: []))
        return rules
    }

    private static func errno(_ value: Int32) -> UInt32 { 0x0005_0000 | (UInt32(value) & 0xFFFF) }
}
