/// A zoom scale as a kiosk asks for it: a number, or a scale that follows the content and the
/// panel (`"fit"`, `"fill"`, `"width"`), worked out again whenever either changes. UIKit leaves
/// this to the app (Apple's PhotoScroller computes its minimum scale from the image's bounds);
/// a kiosk daemon has no app to do it.
public enum ScaleSetting: Hashable, Sendable, CustomStringConvertible, ExpressibleByFloatLiteral,
    ExpressibleByIntegerLiteral {
    /// This scale.
    case scale(Double)
    /// The whole content visible: the smaller of the two ratios of viewport to content.
    case fit
    /// The viewport covered: the larger of the two ratios.
    case fill
    /// The content's width fills the viewport's.
    case width

    /// A number.
    public init(floatLiteral value: Double) { self = .scale(value) }
    /// A whole number.
    public init(integerLiteral value: Int) { self = .scale(Double(value)) }

    /// The setting as the config file spells it.
    public var description: String {
        switch self {
        case let .scale(s): s.written
        case .fit: "\"fit\""
        case .fill: "\"fill\""
        case .width: "\"width\""
        }
    }

    /// The setting's number when it is one.
    public var number: Double? {
        if case let .scale(s) = self { s } else { nil }
    }

    /// The scale for content of `content` pixels (at zoom 1) in a viewport of `viewport` less
    /// `inset`, within `ScrollView.zoomScaleLimitRange`. Content without area takes 1: there is
    /// nothing to fit.
    public func resolved(content: Size, viewport: Size, inset: EdgeInsets = .zero) -> Double {
        let ratioX = (viewport.width - inset.left - inset.right) / content.width
        let ratioY = (viewport.height - inset.top - inset.bottom) / content.height
        let scale: Double
        switch self {
        case let .scale(s): return s
        case .fit: scale = Swift.min(ratioX, ratioY)
        case .fill: scale = Swift.max(ratioX, ratioY)
        case .width: scale = ratioX
        }
        guard scale.isFinite, scale > 0 else { return 1 }
        let limits = ScrollView.zoomScaleLimitRange
        return Swift.min(Swift.max(scale, limits.lowerBound), limits.upperBound)
    }
}

extension ScrollView {
    /// `setting` for this view's content, viewport and inset, not yet held to the zoom limits.
    public func zoomScale(for setting: ScaleSetting) -> Double {
        setting.resolved(content: unscaledContentSize, viewport: boundsSize, inset: contentInset)
    }
}
