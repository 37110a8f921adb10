import FlickCore
import FlickDisplay

/// The window's size as the compositor and the command line decide it, as pure functions: what
/// a `configure` means (0 on an axis: "you choose"; absurd sizes clamped) and the buffer's pixels
/// for a scale.
public enum WindowSize {
    /// The largest side a window's buffer may have, as `--display headless:WxH` allows.
    public static let maximumSide = 16384
    /// The size taken when neither the compositor nor the command line gives one.
    public static let fallback = PixelSize(width: 1280, height: 800)

    /// The logical (surface-local) size a `configure` asks for.
    /// - Parameters:
    ///   - width: the configure's width; 0 (or less) leaves the choice to the client.
    ///   - height: likewise.
    ///   - requested: the size the command line asked for (`--display wayland:WxH`), if any.
    ///   - previous: the size the window has, if it has one.
    /// - Returns: each axis from the compositor when it says one, else the requested one, else
    ///   the present one, else the fallback; within 1…`maximumSide`.
    public static func logical(width: Int32, height: Int32, requested: PixelSize?, previous: PixelSize?) -> PixelSize {
        func axis(_ given: Int32, _ other: Int?, _ present: Int?, _ fallback: Int) -> Int {
            let chosen = given > 0 ? Int(given) : (other ?? present ?? fallback)
            return min(max(chosen, 1), maximumSide)
        }
        return PixelSize(width: axis(width, requested?.width, previous?.width, fallback.width),
                         height: axis(height, requested?.height, previous?.height, fallback.height))
    }

    /// The buffer's pixels for a logical size at a scale (`wl_output.scale`): a whole multiple of
    /// the scale on each axis, as the protocol requires, and no side beyond `maximumSide`.
    /// - Parameters:
    ///   - logical: the surface-local size.
    ///   - scale: the buffer scale, 1 or more (less is taken as 1).
    public static func buffer(_ logical: PixelSize, scale: Int) -> PixelSize {
        let scale = min(max(scale, 1), 16)
        let most = maximumSide / scale
        return PixelSize(width: min(logical.width, most) * scale, height: min(logical.height, most) * scale)
    }
}
