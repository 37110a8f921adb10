import FlickCore
import FlickInput
import FlickWayland

// The input module's two sources already have the loop's shape; FlickInput does not know the
// daemon (arrows point down), so the conformances live here.
extension RecordingSource: TouchSource {
    public func configure(_ settings: TouchSettings, outputSize size: Size) {
        setMapping(settings.mapping, outputSize: size)
        setMinimumTouchDuration(settings.minimumTouchDuration)
    }
}
extension TouchInput: TouchSource {
    /// Every device mapped onto the new size with the mapping in force.
    public func setOutputSize(_ size: Size) { setMapping(options.mapping, outputSize: size) }

    public func configure(_ settings: TouchSettings, outputSize size: Size) {
        setMapping(settings.mapping, outputSize: size)
        setMinimumTouchDuration(settings.minimumTouchDuration)
    }
}
extension WaylandLogSource: PointerSource {}
extension WaylandSeat: PointerSource {}
