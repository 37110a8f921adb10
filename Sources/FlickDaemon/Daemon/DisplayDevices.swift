import FlickCore
import FlickDisplay
import FoundationEssentials

/// What display devices the kernel has, read without taking any over: each DRM card that opens
/// with its connectors (connected or not), and whether a framebuffer device is a DRM card's own
/// fbdev emulation rather than a real fbdev driver. `DisplayOpener` decides from it, so a card
/// whose monitor is off is waited for instead of passed over for its emulation.
public struct DisplayDevices {
    /// A DRM card with KMS resources.
    public struct Card: Hashable, Sendable {
        /// `/dev/dri/card0`.
        public var path: String
        /// Its connectors, in the kernel's order.
        public var connectors: [ConnectorSummary]

        /// Creates a card.
        public init(path: String, connectors: [ConnectorSummary]) {
            self.path = path
            self.connectors = connectors
        }
    }

    /// The cards that opened, in number order (or the one configured).
    public var cards: [Card]
    /// Whether the fbdev device is a DRM driver's emulation.
    public var fbdevIsDRMEmulation: Bool

    /// Creates a survey (tests make their own).
    public init(cards: [Card], fbdevIsDRMEmulation: Bool) {
        self.cards = cards
        self.fbdevIsDRMEmulation = fbdevIsDRMEmulation
    }

    /// Reads the cards (`card`, or every /dev/dri/card*) and the framebuffer's sysfs entry under
    /// `sysfs`.
    public static func survey(card: String?, fbdev: String, sysfs: String = "/sys") -> DisplayDevices {
        let paths = card.map { [$0] } ?? DRMOutput.cardPaths()
        let cards = paths.compactMap { path in (try? DRMOutput.connectors(card: path)).map { Card(path: path, connectors: $0) } }
        return DisplayDevices(cards: cards, fbdevIsDRMEmulation: isDRMEmulation(fbdev: fbdev, sysfs: sysfs))
    }

    /// Whether `fbdev` (`/dev/fb0`) is a DRM driver's fbdev emulation: the kernel names those
    /// after the driver with "drmfb" appended (`vkmsdrmfb`, `virtio_gpudrmfb`, `simpledrmdrmfb`),
    /// in `/sys/class/graphics/fb0/name`; a real fbdev driver's name lacks it. A device with no
    /// sysfs entry is taken as real.
    public static func isDRMEmulation(fbdev: String, sysfs: String = "/sys") -> Bool {
        let node = fbdev.split(separator: "/").last.map(String.init) ?? fbdev
        guard let bytes = FileManager.default.contents(atPath: sysfs + "/class/graphics/" + node + "/name") else { return false }
        return String(decoding: bytes.prefix(256), as: UTF8.self).split(whereSeparator: \.isWhitespace).last?.hasSuffix("drmfb") ?? false
    }

    /// Every connector's name, for a warning about a pinned name that matches none.
    public var connectorNames: [String] { cards.flatMap { $0.connectors.map(\.name) } }

    /// The first card with a connected connector with modes (the one named, if `named`), and
    /// that connector.
    public func connected(named name: String?) -> (card: Card, connector: ConnectorSummary)? {
        for card in cards {
            if let index = KMSSelection.chooseConnector(card.connectors, named: name) { return (card, card.connectors[index]) }
        }
        return nil
    }
}
