import CFontconfig
import CMalloc
import CSeccomp
import FlickSystem
import Glibc

/// The helper's confinement (docs/documents.md, "The sandbox"), in the order it must come:
/// `limit` first (the address space, descriptors, no new privileges), then what needs calls the
/// filter forbids (the pool, fontconfig), then `confine`, before a byte of a document is parsed.
public enum Sandbox {
    /// At most this many descriptors: stdio, the socket, the pool, the documents and fonts being read.
    public static let descriptorLimit: rlim_t = 64

    /// Sets `RLIMIT_AS` to `memoryMB`, `RLIMIT_NOFILE` to `descriptorLimit` (at least the highest
    /// descriptor in use + 16: flickd passes the documents from 4 up), and `PR_SET_NO_NEW_PRIVS`.
    /// - Throws: `SystemError` naming the call that failed.
    public static func limit(memoryMB: Int, highestDescriptor: Int32) throws(SystemError) {
        // One malloc arena for every thread: glibc reserves 64 MiB of address space for each
        // further arena, so librsvg's drawing threads would spend RLIMIT_AS on reservations.
        _ = mallopt(M_ARENA_MAX, 1)
        let bytes = rlim_t(memoryMB) << 20
        var memory = rlimit(rlim_cur: bytes, rlim_max: bytes)
        try retrying("setrlimit(RLIMIT_AS)", "\(memoryMB) MiB") { setrlimit(__rlimit_resource_t(RLIMIT_AS.rawValue), &memory) }
        let files = max(descriptorLimit, rlim_t(max(0, highestDescriptor)) + 16)
        var descriptors = rlimit(rlim_cur: files, rlim_max: files)
        try retrying("setrlimit(RLIMIT_NOFILE)", "\(files) descriptors") { setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &descriptors) }
        try retrying("prctl(PR_SET_NO_NEW_PRIVS)", "the helper") { flickd_set_no_new_privs() }
    }

    /// Loads fontconfig's configuration and caches now, while files may still be opened freely
    /// (poppler asks it for fonts a PDF does not embed, cairo and librsvg for an SVG's text).
    public static func prepareFonts() {
        _ = FcInit()
    }

    /// Installs the seccomp filter: every system call not in `SandboxPolicy.allowed` kills the
    /// process (`SCMP_ACT_KILL_PROCESS`), with the exceptions `SandboxPolicy` spells out.
    /// - Throws: `SystemError` naming libseccomp's call that failed (the filter is then not loaded).
    public static func confine() throws(SystemError) {
        guard let filter = seccomp_init(SCMP_ACT_KILL_PROCESS) else { throw SystemError(call: "seccomp_init", context: "the filter", errno: ENOMEM) }
        defer { seccomp_release(filter) }
        for rule in SandboxPolicy.rules {
            let number = seccomp_syscall_resolve_name(rule.call)
            // A call this kernel's architecture does not have (e.g. `open` on arm64) needs no rule.
            guard number != __NR_SCMP_ERROR else { continue }
            let r = rule.conditions.withUnsafeBufferPointer { conditions in
                seccomp_rule_add_array(filter, rule.action, number, UInt32(conditions.count), conditions.baseAddress)
            }
            _ = try check(r, "seccomp_rule_add(\(rule.call))", "the filter")
        }
        _ = try check(seccomp_load(filter), "seccomp_load", "the filter")
    }
}
