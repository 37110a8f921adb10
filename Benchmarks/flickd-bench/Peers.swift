#if canImport(Glibc)
import Glibc
#endif

/// The programs measured beside flickd, never linked: installed from Debian for the benchmark
/// when missing (as root), else the section runs without them.
enum Peers {
    /// `path`, installed from `package` (apt-get) when missing and running as root; nil if it
    /// still is not there.
    static func installed(_ path: String, package: String) -> String? {
        if access(path, X_OK) == 0 { return path }
        guard getuid() == 0 else { return nil }
        print("peer: installing \(package) (apt-get)…")
        _ = ChildRun(["/usr/bin/apt-get", "install", "-y", "-qq", package], log: "/dev/null",
                     environment: ["DEBIAN_FRONTEND=noninteractive", "PATH=/usr/sbin:/usr/bin:/sbin:/bin"])
        return access(path, X_OK) == 0 ? path : nil
    }
}
