/// A C listener table (`wl_registry_listener`, `xdg_surface_listener`, …) at a fixed address for
/// as long as the proxy it is added to: libwayland keeps the pointer, not a copy.
///
/// The pattern every listener in FlickWayland follows:
/// - the table's entries are closures that capture nothing (C function pointers); each turns
///   the `data` pointer back into its owner with `Unmanaged<Owner>.fromOpaque(data)
///   .takeUnretainedValue()` and calls one method of it, so the logic is ordinary Swift;
/// - the owner keeps the `WaylandListener` as a stored property and passes
///   `Unmanaged.passUnretained(self).toOpaque()` as the user data to `…_add_listener`;
/// - the owner destroys the proxy before it goes (its `close()` or `deinit`), so no event can
///   reach a freed owner or a freed table.
public final class WaylandListener<Table> {
    /// The table, for `…_add_listener`.
    public let pointer: UnsafeMutablePointer<Table>

    /// Copies `table` to memory of its own.
    /// - Parameter table: the C listener struct, its entries non-capturing closures.
    public init(_ table: Table) {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: table)
    }

    deinit {
        pointer.deinitialize(count: 1)
        pointer.deallocate()
    }
}

/// The owner behind a listener's user data.
/// - Parameter data: what the owner passed as `Unmanaged.passUnretained(owner).toOpaque()`.
/// - Returns: the owner, or nil for a null pointer (never passed by flickd).
@inline(__always)
public func waylandOwner<Owner: AnyObject>(_ data: UnsafeMutableRawPointer?, as _: Owner.Type) -> Owner? {
    data.map { Unmanaged<Owner>.fromOpaque($0).takeUnretainedValue() }
}
