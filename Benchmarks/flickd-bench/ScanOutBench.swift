import FlickCore
import FlickDaemon
import FlickDisplay
import FlickInput

/// Section 14 (issue 36 part 5): the DRM calls a panned frame costs, panning one framebuffer by
/// the primary plane's source rectangle against a framebuffer added per frame (the fallback for
/// drivers that refuse the big one, and the way before issue 36).
///
/// This machine has no DRM card: the pipeline plays a drag on a headless 1920×1080 output with
/// overlay planes, wrapped in `DRMCallModel`, which counts for each frame the calls `DRMOutput`
/// makes (its own decision, `ScanOutPan.step`). The real calls on a real kernel are counted by
/// the e2e VM's scenario 14 on vkms (`status.drm`), which prints the same figure.
enum ScanOutBench {
    static let title = "14. DRM calls per panned frame: one framebuffer panned by SRC_X/SRC_Y vs a framebuffer per frame (headless 1920×1080, modelled)"

    static func report(content: Content) {
        let screen = Size(width: 1920, height: 1080)
        for (speed, rate) in [(1000.0, 60.0), (3000.0, 120.0)] {
            let path = FingerPaths.drag(speed: speed, rate: rate, screen: screen)
            print("  drag \(path.name):")
            var perFrame: [ScanOutPan: Double] = [:]
            for pan in [ScanOutPan.views, .source] {
                guard let model = try? play(path, content: content, pan: pan), model.panned.pannedFrames > 0 else {
                    print("    the drag could not be played")
                    return
                }
                let p = model.panned, all = model.counts
                let calls = Double(p.total) / Double(p.pannedFrames)
                perFrame[pan] = calls
                print("    \(pan == .source ? "one framebuffer:        " : "a framebuffer per frame:") \(p.pannedFrames) panned frames: "
                      + "\(p.framebuffersAdded) added, \(p.framebuffersRemoved) removed, \(p.commits) commits "
                      + "= \(fmt(calls, 2)) calls per panned frame; all \(all.commits) frames: \(all.total) calls")
            }
            if let views = perFrame[.views], let source = perFrame[.source] {
                print("    ×\(fmt(source / views, 2)) the calls per panned frame")
                Verdicts.check("panning one framebuffer: 1 DRM call per panned frame (\(path.name), modelled)", source <= 1,
                               "\(fmt(source, 2)) (a framebuffer per frame: \(fmt(views, 2)))")
            }
        }
    }

    /// Plays `path` through a pipeline on a headless display counting as `pan` would.
    static func play(_ path: FingerPath, content: Content, pan: ScanOutPan) throws -> DRMCallModel? {
        guard let headless = HeadlessOutput(size: PixelSize(width: Int(path.screen.width), height: Int(path.screen.height))),
              let first = path.frames.first else { return nil }
        let output = DRMCallModel(headless, pan: pan)
        let home = Point(x: (content.size.width - path.screen.width) / 2, y: (content.size.height - path.screen.height) / 2)
        let pipeline = try PipelineBuilder(configuration: Configuration())
            .build(output: output, content: content, input: .source(ScriptedTouches(path.frames), pixelsPerMillimetre: nil),
                   at: first.time - .milliseconds(100), restore: (home, 1))
        pipeline.start()
        _ = VirtualRunner.run(pipeline)
        return output
    }
}
