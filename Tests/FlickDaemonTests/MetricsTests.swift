import FlickControl
import FlickCore
@testable import FlickDaemon
import Foundation
import Testing

/// Issue 35, part 4: the metrics file's format (Prometheus' text exposition format, as
/// node_exporter's textfile collector reads it) and when it is written, on a virtual clock.
@Suite struct MetricsTests {
    /// Every line is a `# HELP`/`# TYPE` comment or a sample `name{labels} value`, every sample's
    /// family is declared before it, and label values are quoted with `\\`, `\"` and `\n` escaped.
    static func checkFormat(_ text: String) {
        #expect(text.hasSuffix("\n"))
        var typed: Set<String> = []
        let name = #/[a-zA-Z_:][a-zA-Z0-9_:]*/#
        let sample = #/([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\\n]|\\[\\"n])*")(,[a-zA-Z_][a-zA-Z0-9_]*="([^"\\\n]|\\[\\"n])*")*\})? (-?[0-9.e+]+|NaN|[+-]Inf)/#
        for line in text.split(separator: "\n") {
            if line.hasPrefix("# HELP ") {
                #expect(line.split(separator: " ").count >= 4, "\(line)")
            } else if line.hasPrefix("# TYPE ") {
                let parts = line.split(separator: " ")
                #expect(parts.count == 4 && ["counter", "gauge"].contains(parts[3]), "\(line)")
                if parts.count == 4 { typed.insert(String(parts[2])) }
                #expect(parts.count == 4 && (try? name.wholeMatch(in: String(parts[2]))) != nil, "\(line)")
            } else if let match = try? sample.wholeMatch(in: String(line)) {
                #expect(typed.contains(String(match.1)), "\(line): no # TYPE before it")
                if String(match.1).hasSuffix("_total") { #expect(Double(match.7) ?? -1 >= 0, "\(line)") }
            } else {
                Issue.record("not a line of the text format: \(line)")
            }
        }
    }

    @Test func theFileIsInTheTextFormatWithEveryFamilyAndEscapedLabels() {
        var m = KioskMetrics(startTime: 1_790_000_000)
        m.touches = 12
        m.gestures = ["tap": 3, "flick": 2]
        m.framesPresented = 420
        m.powerState = "dim"
        m.content = "/srv/kiosk/\"map\"\\v2\nfinal.png"
        m.provider = "timetable"
        m.providerConnected = true
        m.reloadsRefused = 1
        m.contentError = true
        let text = m.text
        Self.checkFormat(text)
        for family in ["flickd_build_info", "flickd_content_error", "flickd_start_time_seconds", "flickd_touches_total", "flickd_gestures_total",
                       "flickd_phantom_touches_total", "flickd_frames_presented_total", "flickd_frames_late_total",
                       "flickd_display_connected", "flickd_display_power_state", "flickd_content_info",
                       "flickd_provider_connected", "flickd_reloads_total"] {
            #expect(text.contains("# TYPE \(family) "), "\(family)")
        }
        #expect(text.contains("flickd_start_time_seconds 1790000000\n"))
        #expect(text.contains("flickd_gestures_total{kind=\"flick\"} 2\nflickd_gestures_total{kind=\"tap\"} 3\n"))
        #expect(text.contains("flickd_display_power_state{state=\"on\"} 0\nflickd_display_power_state{state=\"dim\"} 1\n"))
        #expect(text.contains(#"flickd_content_info{content="/srv/kiosk/\"map\"\\v2\nfinal.png"} 1"#))
        #expect(text.contains("flickd_provider_connected{provider=\"timetable\"} 1\n"))
        #expect(text.contains("flickd_reloads_total{result=\"refused\"} 1\n"))
        #expect(text.contains("flickd_content_error 1\n"))
        // The version the binaries print and the protocol `status` reports.
        #expect(text.contains("flickd_build_info{protocol=\"\(controlProtocolVersion)\",version=\"\(flickVersion)\"} 1\n"), "\(text)")
        m.contentError = false
        #expect(m.text.contains("flickd_content_error 0\n"))
    }

    /// A temporary folder, removed by the caller.
    static func folder() throws -> String {
        let dir = NSTemporaryDirectory() + "flickd-metrics-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test func writtenAtMostOnceAnIntervalOnlyWhenSomethingChangedAndNoTimerWhenIdle() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/flickd.prom"
        var metrics = KioskMetrics(startTime: 1)
        let file = MetricsTextfile(path: path, interval: .seconds(15)) { metrics }
        func read() -> String? { try? String(contentsOfFile: path, encoding: .utf8) }
        let t0 = Instant.zero + .seconds(100)
        #expect(file.nextDeadline == nil)
        file.changed(at: t0)
        // The first write is at once.
        #expect(file.nextDeadline == t0)
        file.dispatch(now: t0)
        #expect(read() == metrics.text)
        #expect(file.nextDeadline == nil)

        // Changes within the interval wait for its end, and are written together.
        metrics.touches = 1
        file.changed(at: t0 + .seconds(1))
        metrics.touches = 2
        file.changed(at: t0 + .seconds(2))
        #expect(file.nextDeadline == t0 + .seconds(15))
        file.dispatch(now: t0 + .seconds(10))   // an early wake-up (another component's) writes nothing
        #expect(read()?.contains("flickd_touches_total 0\n") == true)
        file.dispatch(now: t0 + .seconds(15))
        #expect(read()?.contains("flickd_touches_total 2\n") == true)
        #expect(file.nextDeadline == nil)

        // A change that changes nothing in the text leaves the file as it is (its mtime too).
        let before = try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date
        file.changed(at: t0 + .seconds(40))
        file.dispatch(now: t0 + .seconds(40))
        let after = try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date
        #expect(before == after)
        #expect(file.nextDeadline == nil)
        // Long after the last write, a change is written at once.
        metrics.framesPresented = 60
        file.changed(at: t0 + .seconds(100))
        #expect(file.nextDeadline == t0 + .seconds(100))
    }

    @Test func aFailedWriteIsSaidOnceUntilOneSucceeds() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var metrics = KioskMetrics()
        let file = MetricsTextfile(path: dir + "/gone/flickd.prom", interval: .seconds(1)) { metrics }
        var said: [String] = []
        file.failed = { said.append("\($0)") }
        for second in 0..<5 {
            metrics.touches = second
            file.changed(at: .zero + .seconds(Int64(second * 2)))
            file.dispatch(now: .zero + .seconds(Int64(second * 2)))
        }
        #expect(said.count == 1)
        #expect(said.first?.contains("gone") == true)
        try FileManager.default.createDirectory(atPath: dir + "/gone", withIntermediateDirectories: true)
        metrics.touches = 10
        file.changed(at: .seconds(20))
        file.dispatch(now: .seconds(20))
        #expect(FileManager.default.fileExists(atPath: dir + "/gone/flickd.prom"))
        // Failing again after a success is said again.
        try FileManager.default.removeItem(atPath: dir + "/gone/flickd.prom")
        try FileManager.default.removeItem(atPath: dir + "/gone")
        metrics.touches = 11
        file.changed(at: .seconds(30))
        file.dispatch(now: .seconds(30))
        #expect(said.count == 2)
    }
}
