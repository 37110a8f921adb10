import FlickCore
import Glibc

/// The zoom a config gives content on a view, in words: where it starts and how far out and in
/// it goes. `check-config` says it of the configured content, the journal of content shown, so
/// an integrator sees what `start_scale = "fit"` comes to before a visitor does.
public struct ZoomSummary: Hashable, Sendable {
    /// The home view's zoom, and the limits, for this content on this view.
    public var start: Double
    public var minimum: Double
    public var maximum: Double
    /// The line, said as the keys that made each number.
    public let line: String

    /// The zoom of `content` (its size at zoom 1) on a view of `view` under `configuration`.
    /// - Throws: `ScrollViewError` for a size or a combination the model refuses.
    public init(configuration: Configuration, content: Size, view: Size) throws(ScrollViewError) {
        var v = try ScrollView(boundsSize: view, contentSize: content)
        try configuration.apply(to: &v)
        start = configuration.framing.home(of: v).zoomScale
        minimum = v.minimumZoomScale
        maximum = v.maximumZoomScale
        let asked = v.zoomScale(for: configuration.startZoomScale)
        var startWhy = "start_scale = \(configuration.startZoomScale)"
        if abs(asked - start) > start * 1e-9 { startWhy += ", \(Self.text(asked)) held within the limits" }
        let minimumWhy: String
        switch configuration.minimumZoomScale {
        case nil where minimum < 1 && minimum == start:
            minimumWhy = " (the start's: minimum_scale = \"auto\")"
        case nil:
            minimumWhy = ""
        case let setting?:
            minimumWhy = " (minimum_scale = \(setting))"
        }
        line = "zoom: starts at \(Self.text(start)) (\(startWhy)), minimum \(Self.text(minimum))\(minimumWhy), "
            + "maximum \(Self.text(maximum)), for \(Self.size(content)) content on a \(Self.size(view)) view"
    }

    /// A zoom with three significant digits, and no trailing zero: `0.024`, `0.12`, `2.5`, `4`.
    public static func text(_ zoom: Double) -> String {
        guard zoom.isFinite, zoom > 0 else { return zoom.brief }
        let decimals = Swift.min(9, Swift.max(0, 2 - Int(log10(zoom).rounded(.down))))
        var s = zoom.fixed(decimals)
        if s.contains(".") {
            while s.hasSuffix("0") { s.removeLast() }
            if s.hasSuffix(".") { s.removeLast() }
        }
        return s
    }

    private static func size(_ s: Size) -> String { "\(Int(s.width.rounded()))x\(Int(s.height.rounded()))" }
}
