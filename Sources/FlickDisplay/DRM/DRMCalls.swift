import Synchronization

/// How many calls into the kernel's DRM interface this process has made, by kind: what a
/// panned frame costs the kernel, read by `status` (its `drm` field: the e2e VM's figure) and
/// by anyone measuring.
///
/// Every `LibDRM` call that makes an ioctl counts once (a few of libdrm's, such as
/// `drmModeGetConnector`, make two or three: they count once). Reading the card's events
/// (`drmHandleEvent`, a `read(2)`) is no ioctl and is not counted.
public struct DRMCallCounts: Hashable, Sendable {
    /// `drmModeAddFB`, `drmModeAddFB2`.
    public var framebuffersAdded = 0
    /// `drmModeRmFB`.
    public var framebuffersRemoved = 0
    /// `drmModeAtomicCommit` (test-only commits too) and `drmModePageFlip`.
    public var commits = 0
    /// Every other: dumb buffers, their mappings, resources, planes and properties, the CRTC,
    /// client capabilities, the vblank counter.
    public var other = 0
    /// Not a call: frames committed whose primary plane shows a scan-out buffer from a corner
    /// other than the frame on screen's (or another buffer): what the calls are divided by.
    public var pannedFrames = 0

    /// Creates counts.
    public init(framebuffersAdded: Int = 0, framebuffersRemoved: Int = 0, commits: Int = 0, other: Int = 0,
                pannedFrames: Int = 0) {
        self.framebuffersAdded = framebuffersAdded
        self.framebuffersRemoved = framebuffersRemoved
        self.commits = commits
        self.other = other
        self.pannedFrames = pannedFrames
    }

    /// All the calls.
    public var total: Int { framebuffersAdded + framebuffersRemoved + commits + other }

    /// The calls made since `earlier`.
    public static func - (later: DRMCallCounts, earlier: DRMCallCounts) -> DRMCallCounts {
        DRMCallCounts(framebuffersAdded: later.framebuffersAdded - earlier.framebuffersAdded,
                      framebuffersRemoved: later.framebuffersRemoved - earlier.framebuffersRemoved,
                      commits: later.commits - earlier.commits, other: later.other - earlier.other,
                      pannedFrames: later.pannedFrames - earlier.pannedFrames)
    }

    /// Both counts together.
    public static func + (a: DRMCallCounts, b: DRMCallCounts) -> DRMCallCounts {
        DRMCallCounts(framebuffersAdded: a.framebuffersAdded + b.framebuffersAdded,
                      framebuffersRemoved: a.framebuffersRemoved + b.framebuffersRemoved,
                      commits: a.commits + b.commits, other: a.other + b.other, pannedFrames: a.pannedFrames + b.pannedFrames)
    }

    /// The process's counts so far.
    public static var now: DRMCallCounts {
        DRMCallCounts(framebuffersAdded: LibDRM.Counter.added.load(ordering: .relaxed),
                      framebuffersRemoved: LibDRM.Counter.removed.load(ordering: .relaxed),
                      commits: LibDRM.Counter.commits.load(ordering: .relaxed),
                      other: LibDRM.Counter.other.load(ordering: .relaxed),
                      pannedFrames: LibDRM.Counter.panned.load(ordering: .relaxed))
    }
}

extension LibDRM {
    /// The counters behind `DRMCallCounts`: atomics, since the grab tool and tests may open
    /// cards from any thread.
    enum Counter {
        static let added = Atomic<Int>(0)
        static let removed = Atomic<Int>(0)
        static let commits = Atomic<Int>(0)
        static let other = Atomic<Int>(0)
        static let panned = Atomic<Int>(0)

        /// What a call is, for its counter.
        enum Kind { case added, removed, commit, other, panned }

        /// Counts one call.
        static func count(_ kind: Kind) {
            switch kind {
            case .added: added.wrappingAdd(1, ordering: .relaxed)
            case .removed: removed.wrappingAdd(1, ordering: .relaxed)
            case .commit: commits.wrappingAdd(1, ordering: .relaxed)
            case .other: other.wrappingAdd(1, ordering: .relaxed)
            case .panned: panned.wrappingAdd(1, ordering: .relaxed)
            }
        }
    }
}
