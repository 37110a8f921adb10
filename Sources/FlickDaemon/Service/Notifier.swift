import CSystemd

/// Tells systemd how the service is doing (`Type=notify`). Outside systemd (`NOTIFY_SOCKET`
/// unset) every call does nothing.
public struct Notifier: Sendable {
    /// Creates a notifier.
    public init() {}

    /// Whether systemd listens (`NOTIFY_SOCKET` is set).
    public var isActive: Bool { getenvIsSet("NOTIFY_SOCKET") }

    /// `READY=1` with a status line: the first frame is on screen.
    public func ready(status: String) { send("READY=1\nSTATUS=\(status)") }

    /// `STATUS=…`: what the daemon shows and reads.
    public func status(_ text: String) { send("STATUS=\(text)") }

    /// `RELOADING=1` with the monotonic time, before re-reading the config.
    public func reloading(at monotonicMicroseconds: UInt64) { send("RELOADING=1\nMONOTONIC_USEC=\(monotonicMicroseconds)") }

    /// `STOPPING=1`: shutting down cleanly.
    public func stopping() { send("STOPPING=1") }

    /// The corresponding C function is `sd_notify`.
    private func send(_ state: String) {
        _ = sd_notify(0, state)
    }

    private func getenvIsSet(_ name: String) -> Bool {
        name.withCString { getenv($0) } != nil
    }
}

#if canImport(Glibc)
import Glibc
#endif
