import FlickCore

/// A KMS CRTC object id.
public struct CRTCID: RawRepresentable, Hashable, Sendable {
    /// The kernel's id.
    public var rawValue: UInt32
    /// Wraps a kernel id.
    public init(rawValue: UInt32) { self.rawValue = rawValue }
}

/// A KMS connector object id.
public struct ConnectorID: RawRepresentable, Hashable, Sendable {
    /// The kernel's id.
    public var rawValue: UInt32
    /// Wraps a kernel id.
    public init(rawValue: UInt32) { self.rawValue = rawValue }
}

/// A KMS encoder object id.
public struct EncoderID: RawRepresentable, Hashable, Sendable {
    /// The kernel's id.
    public var rawValue: UInt32
    /// Wraps a kernel id.
    public init(rawValue: UInt32) { self.rawValue = rawValue }
}

/// A display mode as the decisions need it (from `drmModeModeInfo`).
public struct DisplayMode: Hashable, Sendable, CustomStringConvertible {
    /// Active columns.
    public var width: Int
    /// Active rows.
    public var height: Int
    /// The refresh rate in Hz, computed from the pixel clock and totals when known.
    public var refreshRate: Double
    /// Whether the connector flags it `DRM_MODE_TYPE_PREFERRED`.
    public var isPreferred: Bool

    /// Creates a mode.
    public init(width: Int, height: Int, refreshRate: Double, isPreferred: Bool = false) {
        self.width = width
        self.height = height
        self.refreshRate = refreshRate
        self.isPreferred = isPreferred
    }

    public var description: String {
        let hz = (refreshRate * 100).rounded() / 100
        return "\(width)x\(height)@\(hz)\(isPreferred ? " (preferred)" : "")"
    }
}

/// A configured mode, `WIDTHxHEIGHT` or `WIDTHxHEIGHT@HZ` (e.g. `1280x800@60`).
public struct ModeRequest: Hashable, Sendable, CustomStringConvertible {
    /// Wanted columns.
    public var width: Int
    /// Wanted rows.
    public var height: Int
    /// Wanted refresh rate, if given; matched within 0.5 Hz.
    public var refreshRate: Double?

    /// Creates a request.
    public init(width: Int, height: Int, refreshRate: Double? = nil) {
        self.width = width
        self.height = height
        self.refreshRate = refreshRate
    }

    /// Parses `WIDTHxHEIGHT[@HZ]`; `nil` if malformed or not positive.
    public init?(_ text: String) {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count <= 2 else { return nil }
        let dims = parts[0].split(separator: "x", omittingEmptySubsequences: false)
        guard dims.count == 2, let w = Int(dims[0]), let h = Int(dims[1]), w > 0, h > 0 else { return nil }
        var hz: Double?
        if parts.count == 2 {
            guard let value = Double(parts[1]), value.isFinite, value > 0 else { return nil }
            hz = value
        }
        self.init(width: w, height: h, refreshRate: hz)
    }

    public var description: String { "\(width)x\(height)" + (refreshRate.map { "@\($0)" } ?? "") }
}

/// A connector as the decisions need it.
public struct ConnectorSummary: Hashable, Sendable {
    /// Its id.
    public var id: ConnectorID
    /// A name such as `HDMI-A-1` or `Virtual-1`.
    public var name: String
    /// Whether a panel is attached (`DRM_MODE_CONNECTED`).
    public var isConnected: Bool
    /// The modes it offers, in the kernel's order.
    public var modes: [DisplayMode]
    /// The encoder currently driving it, if any.
    public var currentEncoder: EncoderID?
    /// The encoders that can drive it.
    public var encoders: [EncoderID]
    /// The panel's size in millimetres (`mmWidth` × `mmHeight`, from its EDID); nil when the
    /// kernel reports 0 (projectors, virtual connectors, panels without EDID).
    public var physicalSize: Size?

    /// Creates a summary.
    public init(id: ConnectorID, name: String, isConnected: Bool, modes: [DisplayMode],
                currentEncoder: EncoderID? = nil, encoders: [EncoderID] = [], physicalSize: Size? = nil) {
        self.id = id
        self.name = name
        self.isConnected = isConnected
        self.modes = modes
        self.currentEncoder = currentEncoder
        self.encoders = encoders
        self.physicalSize = physicalSize
    }

    /// A connector's reported millimetres as a size: nil unless both are positive.
    public static func physicalSize(millimetresWide width: UInt32, high height: UInt32) -> Size? {
        width > 0 && height > 0 ? Size(width: Double(width), height: Double(height)) : nil
    }
}

/// An encoder as the decisions need it.
public struct EncoderSummary: Hashable, Sendable {
    /// Its id.
    public var id: EncoderID
    /// The CRTC it is bound to now, if any.
    public var currentCRTC: CRTCID?
    /// Bit *i* set: it can be driven by the *i*-th CRTC of the card's resources.
    public var possibleCRTCs: UInt32

    /// Creates a summary.
    public init(id: EncoderID, currentCRTC: CRTCID?, possibleCRTCs: UInt32) {
        self.id = id
        self.currentCRTC = currentCRTC
        self.possibleCRTCs = possibleCRTCs
    }
}

/// The pure decisions of KMS setup, over plain values, so they are unit-tested without a card.
public enum KMSSelection {
    /// The mode to use.
    ///
    /// A request picks the matching mode (the preferred, then the fastest, among equals), or none
    /// at all: a configured mode the panel lacks is an error for the caller, not a silent
    /// fallback. Without a request: the preferred mode wherever it is in the list (vkms does not
    /// list it first), else the largest (by area, then refresh rate).
    /// - Returns: the index in `modes`, or `nil`.
    public static func chooseMode(_ modes: [DisplayMode], requested: ModeRequest? = nil) -> Int? {
        func better(_ a: DisplayMode, than b: DisplayMode) -> Bool {
            (a.width * a.height, a.isPreferred ? 1 : 0, a.refreshRate) > (b.width * b.height, b.isPreferred ? 1 : 0, b.refreshRate)
        }
        let indices = modes.indices
        if let request = requested {
            let matching = indices.filter { i in
                modes[i].width == request.width && modes[i].height == request.height
                    && (request.refreshRate.map { abs(modes[i].refreshRate - $0) < 0.5 } ?? true)
            }
            return matching.max { better(modes[$1], than: modes[$0]) }
        }
        if let preferred = indices.first(where: { modes[$0].isPreferred }) { return preferred }
        return indices.max { better(modes[$1], than: modes[$0]) }
    }

    /// The connector to use: the named one if given (connected or not, so the caller can say
    /// why), else the first connected one with at least one mode.
    /// - Returns: the index in `connectors`, or `nil`.
    public static func chooseConnector(_ connectors: [ConnectorSummary], named name: String? = nil) -> Int? {
        if let name { return connectors.firstIndex { $0.name == name && $0.isConnected && !$0.modes.isEmpty } }
        return connectors.firstIndex { $0.isConnected && !$0.modes.isEmpty }
    }

    /// The CRTC for `connector`: its current encoder's CRTC, else the first CRTC one of its
    /// encoders can use (by the `possible_crtcs` bit mask over `crtcs`), skipping `taken`.
    /// - Returns: the CRTC, or `nil` when none can drive the connector.
    public static func chooseCRTC(for connector: ConnectorSummary, encoders: [EncoderSummary], crtcs: [CRTCID],
                                  taken: Set<CRTCID> = []) -> CRTCID? {
        if let current = connector.currentEncoder, let encoder = encoders.first(where: { $0.id == current }),
           let crtc = encoder.currentCRTC, !taken.contains(crtc) {
            return crtc
        }
        for id in connector.encoders {
            guard let encoder = encoders.first(where: { $0.id == id }) else { continue }
            for (index, crtc) in crtcs.enumerated() where index < 32 && encoder.possibleCRTCs & (1 << UInt32(index)) != 0 {
                if !taken.contains(crtc) { return crtc }
            }
        }
        return nil
    }
}
