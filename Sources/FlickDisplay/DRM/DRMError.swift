import FlickCore
import FlickSystem
/// The step of DRM setup or use that failed, for error messages.
public enum DRMStep: String, Hashable, Sendable {
    case open, getResources, getConnector, getEncoder, getCRTC, createDumbBuffer, addFramebuffer, mapDumbBuffer,
         atomicCommit,
         mmap, setCRTC, pageFlip, handleEvent, getFramebuffer, setActive
}

/// Why the DRM/KMS output could not be set up or used; every case names the card.
public enum DRMError: FlickError, Hashable, Sendable {
    /// No usable `/dev/dri/card*`; `tried` lists each card and why it was skipped.
    case noCard(tried: [String])
    /// The card has no connected connector with modes.
    case noConnectedConnector(card: String)
    /// The configured mode is not offered by the panel.
    case modeNotAvailable(card: String, requested: ModeRequest, available: [DisplayMode])
    /// No CRTC can drive the chosen connector.
    case noCRTC(card: String, connector: String)
    /// Opening the card was refused.
    case permissionDenied(card: String, cause: SystemError)
    /// A modeset or flip was refused: another process is DRM master.
    case notMaster(card: String, step: DRMStep, cause: SystemError)
    /// Any other failed call.
    case call(card: String, step: DRMStep, cause: SystemError)

    public var context: ErrorContext {
        switch self {
        case .noCard(let tried):
            ErrorContext(reason: "no usable DRM card" + (tried.isEmpty ? " (no /dev/dri/card*)" : ": " + tried.joined(separator: "; ")))
        case .noConnectedConnector(let card): ErrorContext(source: card, reason: "no connected connector with modes (is the panel plugged in?)")
        case .modeNotAvailable(let card, let requested, let available):
            ErrorContext(source: card, key: "mode", reason: "not offered",
                         expected: available.map(\.description).joined(separator: ", "), found: "\(requested)")
        case .noCRTC(let card, let connector): ErrorContext(source: card, reason: "no CRTC can drive connector \(connector)")
        case .permissionDenied(let card, let cause):
            ErrorContext(source: card, reason: "\(cause.errnoDescription): add the user to the 'video' group (or run as root)")
        case .notMaster(let card, let step, let cause):
            ErrorContext(source: card, reason: "\(step.rawValue) failed: \(cause.errnoDescription): not DRM master; another compositor or X server owns the display, or the session is not on the active VT")
        case .call(let card, let step, let cause): ErrorContext(source: card, reason: "\(step.rawValue) failed: \(cause.errnoDescription)")
        }
    }

    public var kind: ErrorKind { .unavailable }
}
