import FlickCore

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
        if abs(asked - start) > start * 1e-9 { startWhy += ", \(asked.brief) held within the limits" }
        let minimumWhy: String
        switch configuration.minimumZoomScale {
        case nil where minimum < 1 && minimum == start:
            minimumWhy = " (the start's: minimum_scale = \"auto\")"
        case nil:
            minimumWhy = ""
        case let setting?:
            minimumWhy = " (minimum_scale = \(setting))"
        }
        line = "zoom: starts at \(start.brief) (\(startWhy)), minimum \(minimum.brief)\(minimumWhy), "
            + "maximum \(maximum.brief), for \(Self.size(content)) content on a \(Self.size(view)) view"
    }

    private static func size(_ s: Size) -> String { "\(Int(s.width.rounded()))x\(Int(s.height.rounded()))" }
}
