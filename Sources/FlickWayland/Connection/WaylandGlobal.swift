/// One global the compositor announced on the registry: an interface it offers, under a name
/// (a number) to bind it by, at the highest version it speaks.
public struct WaylandGlobal: Hashable, Sendable, CustomStringConvertible {
    /// The registry's name for it (a number, not the interface).
    public var name: UInt32
    /// The interface, e.g. `wl_compositor`, `xdg_wm_base`.
    public var interface: String
    /// The highest version the compositor speaks.
    public var version: UInt32

    /// Creates a record.
    public init(name: UInt32, interface: String, version: UInt32) {
        self.name = name
        self.interface = interface
        self.version = version
    }

    public var description: String { "\(interface) v\(version)" }
}

/// A global announced or withdrawn after the connection's first round trip.
public enum WaylandGlobalChange: Hashable, Sendable {
    /// Announced: a monitor or a seat plugged in.
    case added(WaylandGlobal)
    /// Withdrawn: its proxies are dead; destroy them.
    case removed(WaylandGlobal)
}

/// What a set of announced globals lacks for a purpose, as a pure function of the registry's
/// record (tested without a compositor).
public struct WaylandRequirements: Sendable {
    /// Interfaces with the lowest version accepted.
    public var needed: [(interface: String, version: UInt32)]

    /// Creates a requirement list.
    public init(_ needed: [(interface: String, version: UInt32)]) {
        self.needed = needed
    }

    /// What an output needs: a compositor for surfaces, xdg-shell for a window, shared memory
    /// for buffers. `wp_presentation`, `wp_viewporter` and `wl_output` are used when offered.
    public static let output = WaylandRequirements([("wl_compositor", 4), ("xdg_wm_base", 1), ("wl_shm", 1)])

    /// The first requirement `globals` do not meet, as the error that says so; nil when all are met.
    /// - Parameters:
    ///   - globals: the registry's record.
    ///   - socket: the compositor's socket, for the message.
    public func unmet(in globals: [WaylandGlobal], socket: String) -> WaylandError? {
        for (interface, version) in needed {
            let offered = globals.filter { $0.interface == interface }.map(\.version).max()
            guard let offered else { return .missingGlobal(interface: interface, socket: socket) }
            if offered < version { return .globalTooOld(interface: interface, version: offered, needed: version) }
        }
        return nil
    }
}
