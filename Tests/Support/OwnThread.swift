#if canImport(Glibc)
import Glibc
#endif

/// Runs `body` on a new joinable thread and returns when it has ended: for what a test must not
/// do to a thread of the test pool, which runs other tests after it (take a real-time priority,
/// lower itself), and for a thread of known birth (what it inherits from its creator).
/// - Returns: false when the thread could not be created (`body` did not run).
@discardableResult
public func runOnOwnThread(_ body: @escaping @Sendable () -> Void) -> Bool {
    final class Box: @unchecked Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    var thread = pthread_t()
    let context = Unmanaged.passRetained(Box(body)).toOpaque()
    guard pthread_create(&thread, nil, { context in
        guard let context else { return nil }
        Unmanaged<Box>.fromOpaque(context).takeRetainedValue().body()
        return nil
    }, context) == 0 else {
        Unmanaged<Box>.fromOpaque(context).release()
        return false
    }
    pthread_join(thread, nil)
    return true
}
