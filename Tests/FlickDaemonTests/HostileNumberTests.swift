import FlickControl
import FlickCore
@testable import FlickDaemon
import FlickDisplay
import FlickInput
import Foundation
import Testing

/// No number from outside may stop the daemon (issue 22, part 1): every control command with
/// the largest, smallest, negative-zero and out-of-Int values in every field, and every numeric
/// config key at the ends of what TOML carries, driven through the model, the frames, the
/// journal's text and the subscribers' JSON. A trap here kills the test process, so the run
/// fails; each event line must also be a real JSON object, not the `{}` an encoder writes for
/// a NaN.
@Suite struct HostileNumberTests {
    static let extremes: [Double] = [1e19, -1e19, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
                                     .leastNonzeroMagnitude, -0.0, 9.223372036854775807e18, 0, -1]

    /// Every output's journal entry and event line, checked as the daemon writes them.
    static func check(_ output: GestureOutput, _ view: ScrollView) {
        if let entry = GestureLog.entry(for: output, view: view) {
            #expect(!entry.message.isEmpty && !entry.fields.values.contains(""))
        }
        let line = ControlMessage.event(output, view: view).line()
        let object = try? JSONSerialization.jsonObject(with: line.dropLast()) as? [String: Any]
        #expect(object?["type"] is String, "\(output): \(String(decoding: line, as: UTF8.self))")
    }

    /// A rig whose every output is checked; `tiled`: over the test pattern as tiles (the
    /// frames then go through the tile store, levels of detail and the scan-out band).
    static func rig(configuration: Configuration = Configuration(), tiled: Bool = false) throws -> PipelineRig {
        let content = tiled ? try Content.testPattern(PixelSize(width: 1000, height: 3000)) : nil
        let rig = try PipelineRig(content: content, configuration: configuration)
        rig.onOutput = check
        return rig
    }

    @Test func theReportedCrashIsAnAnswer() throws {
        let rig = try Self.rig()
        let handler = rig.commands()
        // `flickctl set-offset --no-animate 1e19 0` stopped the service with SIGILL. The command
        // is clamped into the bounds now; the model, which takes any finite offset as UIKit
        // does, is given it directly.
        let reply = handler.handle(.setOffset(x: 1e19, y: 0, animated: false), id: 1)
        #expect(reply.ok == true && reply.offset == [680, 0])
        let t = rig.pipeline.now
        rig.pipeline.update(at: t) { try? $0.setContentOffset(Point(x: 1e19, y: 0), animated: false, at: t) }
        #expect(rig.view.contentOffset == Point(x: 1e19, y: 0))
        rig.settle()
        let entry = try #require(GestureLog.entry(for: GestureOutput(time: .zero, kind: .gesture(.bounce(edge: .right, distance: 1e19))),
                                                  view: rig.view))
        #expect(entry.message == "bounce off the right edge, 1e+19 px past it")
    }

    @Test(arguments: [false, true])
    func everyCommandTakesEveryExtremeNumber(tiled: Bool) throws {
        let rig = try Self.rig(tiled: tiled)
        let handler = rig.commands()
        for a in Self.extremes {
            for b in Self.extremes.reversed() {
                for animated in [false, true] {
                    let commands: [ControlCommand] = [
                        .setOffset(x: a, y: b, animated: animated),
                        .scrollRectToVisible(x: a, y: b, width: abs(a), height: abs(b), animated: animated),
                        .setZoomScale(abs(a), animated: animated),
                        .zoomToRect(x: a, y: b, width: abs(b), height: abs(a), animated: animated),
                        .showPage(Int(saturating: a), animated: animated),
                        .scrollToTop(animated: animated), .flashIndicators, .status,
                    ]
                    for command in commands {
                        let reply = handler.handle(command, id: Int(saturating: b))
                        let line = reply.line()
                        let object = try? JSONSerialization.jsonObject(with: line.dropLast()) as? [String: Any]
                        #expect(object?["ok"] is Bool, "\(command): \(String(decoding: line, as: UTF8.self))")
                        rig.settle()
                    }
                }
            }
        }
        // Afterwards the daemon still moves where it is asked.
        #expect(handler.handle(.setZoomScale(1, animated: false), id: 1).ok == true)
        #expect(handler.handle(.setOffset(x: 0, y: 40, animated: true), id: 2).ok == true)
        rig.settle()
        #expect(rig.view.contentOffset == Point(x: 0, y: 40))
    }

    /// Tiled content looks ahead to where a motion rests (tiles to fetch, the scan-out band's
    /// next place): an animation toward any finite offset, from the middle of the content,
    /// is one a frame can be drawn for. The model is asked directly: a command's offset is
    /// clamped into the bounds first.
    @Test func tiledContentLooksAheadToAnyRestingOffset() throws {
        let rig = try Self.rig(tiled: true)
        let handler = rig.commands()
        for a in Self.extremes + [1e30, -1e30, 1e200] {
            for b in [a, 0, 1400] {
                _ = handler.handle(.setOffset(x: 300, y: 1400, animated: false), id: 1)
                rig.settle()
                let t = rig.pipeline.now
                rig.pipeline.update(at: t) { try? $0.setContentOffset(Point(x: a, y: b), animated: true, at: t) }
                #expect(rig.view.destination.offset == Point(x: a, y: b))
                rig.settle()
            }
        }
        #expect(handler.handle(.setOffset(x: 0, y: 40, animated: false), id: 3).ok == true)
        rig.settle()
        #expect(rig.view.contentOffset == Point(x: 0, y: 40))
    }

    @Test func nonFiniteNumbersAreRefusedByName() {
        for bad in [Double.nan, .infinity, -.infinity] {
            for (request, field) in [(ControlRequest(cmd: "set-offset", x: bad, y: 0), "x"),
                                     (ControlRequest(cmd: "set-offset", x: 0, y: bad), "y"),
                                     (ControlRequest(cmd: "set-zoom", scale: bad), "scale"),
                                     (ControlRequest(cmd: "zoom-to-rect", x: 0, y: 0, width: bad, height: 1), "width"),
                                     (ControlRequest(cmd: "scroll-rect-to-visible", x: 0, y: 0, width: 1, height: bad), "height")] {
                #expect(throws: ControlError.badField(command: request.cmd, field: field, expected: "a finite number")) {
                    try ControlCommand(request)
                }
            }
        }
        // The model, reached without that check, refuses them too and stays where it was.
        if let rig = try? Self.rig() {
            let commands = rig.commands()
            for command: ControlCommand in [.setOffset(x: .nan, y: 0, animated: false), .setZoomScale(.infinity, animated: true),
                                            .zoomToRect(x: 0, y: .nan, width: 1, height: 1, animated: false)] {
                #expect(commands.handle(command, id: 1).ok == false)
            }
            #expect(rig.view.contentOffset == .zero)
        }
    }

    @Test func aClampedRequestIsAnsweredWithWhatWasApplied() throws {
        var configuration = Configuration()
        configuration.minimumZoomScale = 0.5
        configuration.maximumZoomScale = 3
        let rig = try Self.rig(configuration: configuration)
        let handler = rig.commands()
        let zoom = handler.handle(.setZoomScale(1e300, animated: true), id: 1)
        #expect(zoom.ok == true && zoom.zoomScale == 3)
        // 1000×3000 content in a 320×200 view at zoom 1: the bottom is at offset 2800.
        _ = handler.handle(.setZoomScale(1, animated: false), id: 2)
        let rect = handler.handle(.scrollRectToVisible(x: 0, y: 1e300, width: 10, height: 10, animated: false), id: 3)
        #expect(rect.ok == true && rect.offset == [0, 2800] && rect.zoomScale == 1)
        // An offset past the edges is clamped into the bounds, and the reply says where it went.
        #expect(handler.handle(.setOffset(x: -100, y: 1e300, animated: true), id: 4).offset == [0, 2800])
    }

    @Test func numbersBecomeTextWhateverTheirSize() {
        #expect(1e19.brief == "1e+19" && (-1e19).brief == "-1e+19")
        #expect(Double.greatestFiniteMagnitude.brief == "1.7976931348623157e+308")
        #expect(919.0.brief == "919" && 2.54.brief == "2.54" && (-1840.0).brief == "-1840" && (-0.0).brief == "0")
        #expect(Double.nan.brief == "nan" && Double.infinity.brief == "inf" && (-Double.infinity).brief == "-inf")
        #expect(Int(saturating: 1e19) == .max && Int(saturating: -1e300) == .min && Int(saturating: .nan) == 0)
        #expect(Int32(saturating: 3e9) == .max && UInt32(saturating: -4) == 0 && Int(saturating: -2.7) == -2)
        #expect(Duration.seconds(double: 1e300) == .nanoseconds(Int64.max))
        #expect(Instant(nanoseconds: .max - 5) + .seconds(1) == Instant(nanoseconds: .max))
        #expect(Instant(nanoseconds: .min + 5) - .seconds(1) == Instant(nanoseconds: .min))
        #expect(Instant.seconds(-1e300) == Instant(nanoseconds: .min))
    }

    /// A short recording of every gesture on a small panel: tap, flick, slow drag, pinch, double
    /// tap, long press.
    static let recording: String = {
        var s = TouchScript(description: .slotTouchscreen(width: 1600, height: 1000, slots: 2, resolution: 10))
        s.idle(0)
        s.tap(at: 800, 500, t: 0.1)
        s.drag(from: (800, 900), to: (800, 200), seconds: 0.06, t: 0.5)
        s.drag(from: (300, 300), to: (1300, 700), seconds: 0.8, t: 1.0)
        s.pinch(centre: (800, 500), from: 100, to: 400, seconds: 0.3, t: 2.2)
        s.tap(at: 400, 400, t: 3.0)
        s.tap(at: 400, 400, t: 3.2)
        s.hold(at: 600, 600, seconds: 0.7, t: 3.8)
        s.idle(5)
        return s.text
    }()

    @Test func everyNumericConfigKeyAtItsEndsEitherRefusesOrRuns() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flickd-hostile-\(UUID())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let recording = dir + "/gestures.evemu"
        try Self.recording.write(toFile: recording, atomically: true, encoding: .utf8)
        let values = ["1.7976931348623157e308", "-1.7976931348623157e308", "5e-324", "-0.0", "0", "1e19",
                      "9223372036854775807", "-9223372036854775808", "0.9999999999999999", "1e-300"]
        var ran = 0, refused = 0
        for key in ConfigSchema.keys.keys.sorted() {
            let (section, name) = (key.split(separator: ".")[0], key.split(separator: ".")[1])
            var texts = values
            texts += values.map { "[\($0), \($0), \($0), \($0)]" }
            texts += values.map { v in "[" + Array(repeating: v, count: 6).joined(separator: ", ") + "]" }
            for value in texts {
                let text = "[\(section)]\n\(name) = \(value)\n"
                let configuration: Configuration
                do {
                    configuration = try ConfigLoader.parse(text, path: "hostile.toml")
                } catch {
                    #expect(error.description.hasPrefix("hostile.toml:"), "\(key) = \(value): \(error)")
                    refused += 1
                    continue
                }
                var options = Replay.Options(recording: recording, size: PixelSize(width: 160, height: 100))
                options.settleLimit = .seconds(5)
                do {
                    let sink = KeptOutputs()
                    sink.onOutput = { output, view in
                        _ = GestureLog.entry(for: output, view: view)
                        let line = ControlMessage.event(output, view: view).line()
                        #expect(line.count > 3, "\(key) = \(value): \(output) wrote \(String(decoding: line, as: UTF8.self))")
                    }
                    let summary = try Replay.run(options, configuration: configuration, sink: sink, note: { _ in })
                    #expect(summary.offset.isFinite && summary.zoomScale.isFinite, "\(key) = \(value)")
                } catch {
                    // A config the model cannot take (zoom limits crossed) is refused at start.
                    #expect(!"\(error)".isEmpty)
                }
                ran += 1
            }
        }
        #expect(ran > 50 && refused > 100)
    }

    /// Found by the provider fuzz target once it drove the real content host: a `detail` within
    /// 0…3 whose finest level is over a Deep Zoom grid's side passed the checks, and the daemon
    /// refused it as "out of descriptors or memory".
    @Test func aDetailWhoseFinestLevelIsOverTheLargestGridIsRefusedByName() throws {
        let wide = ControlRequest(cmd: "provide", width: 16_777_216, height: 10, tileSize: 64, slots: 4, detail: 1)
        #expect(throws: ControlError.badField(command: "provide", field: "detail",
                                              expected: "at most 0 for 16777216x10 content (its finest level, 2^detail times its size, is at most 16777216 px a side)")) {
            try ControlCommand(wide)
        }
        let fits = ControlRequest(cmd: "provide", width: 2_097_152, height: 10, tileSize: 64, slots: 4, detail: 3)
        guard case .provide(let declared) = try ControlCommand(fits) else {
            Issue.record("not a provide")
            return
        }
        #expect(declared.detail == 3)
    }
}
