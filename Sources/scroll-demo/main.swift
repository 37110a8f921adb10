// Plays a scripted flick through the scroll view model on a virtual clock and prints each
// delegate message with the offset, so the physics can be seen without any hardware.
import FlickCore

let frame = 1.0 / 60
var now = Instant.seconds(1)
var view = try ScrollView(boundsSize: Size(width: 800, height: 480), contentSize: Size(width: 800, height: 6000))

@MainActor func report(_ label: String) {
    let events = view.takeEvents()
    let names = events.filter { $0 != .didScroll }.map(\.description)
    let scrolled = events.contains(.didScroll) ? " didScroll" : ""
    let y = (view.contentOffset.y * 10).rounded() / 10
    print("t=\(String((now.seconds - 1).description.prefix(6)))s  y=\(y)  \(label)\(scrolled) \(names.joined(separator: " "))")
}

print("scroll-demo: an 800×480 view over 6000 px of content, deceleration \(view.decelerationRate)")
view.touchDown(at: now)
report("touch down")
for _ in 0..<6 {
    now = now + .seconds(double: frame)
    view.drag(by: Vector(dx: 0, dy: -25), at: now)
    report("drag")
}
view.release(velocity: Vector(dx: 0, dy: -1840), at: now)
report("lift at 1840 px/s")
var frames = 0
while view.isAnimating {
    now = now + .seconds(double: frame)
    view.advance(to: now)
    frames += 1
    if frames % 30 == 0 || !view.isAnimating { report("frame \(frames)") } else { _ = view.takeEvents() }
}
print("at rest after \(frames) frames: y=\(view.contentOffset.y)")
