import FlickCore
import Foundation
import Glibc

// A month of a kiosk's life on the virtual clock (RELIABILITY.md, "A month on the virtual
// clock"): `make soak-month` runs 30 days, CI 3. Exits 1 when a bound or an invariant breaks.
//
//   flickd-soak-month [--days N] [--gestures-per-day N] [--seed N]

// The content host's pyramid builds run this executable as their child (PyramidChild.swift).
if CommandLine.arguments.count > 1 && CommandLine.arguments[1] == "pyramid" {
    exit(PyramidChild.run(Array(CommandLine.arguments.dropFirst(2))))
}

var days = 30, perDay = 33_334, seed: UInt64 = 51
var arguments = CommandLine.arguments.dropFirst()
while let flag = arguments.popFirst() {
    guard let value = arguments.popFirst() else { fatalError("\(flag) needs a value") }
    switch flag {
    case "--days": days = Int(value) ?? days
    case "--gestures-per-day": perDay = Int(value) ?? perDay
    case "--seed": seed = UInt64(value) ?? seed
    default: fatalError("unknown option \(flag)")
    }
}

/// Bounds, after the first day (the warm-up: every code path, cache and pool has been through
/// its first use). Each is said with the figures in RELIABILITY.md.
enum Bounds {
    /// Resident memory may exceed the warm-up day's highest by this much: malloc's free lists
    /// and the tile cache's spare buffers fill at their own pace within their budgets.
    static let residentSlack = 4 << 20
    /// Mappings may exceed the warm-up day's most by this many: malloc serves large blocks
    /// (decoded images, pyramid bands) with mmap, and how many are live at a given hour varies.
    static let mappingSlack = 16
    /// Descriptors and threads may exceed the warm-up day's most by one tile loader (a worker
    /// thread and its wake-up pipe): image content over `content.pixel_budget` is shown from its
    /// pyramid through a `TileLoader`, which starts a worker whenever such content is loaded, and
    /// which image shows at a given hour follows the replacements. A descriptor or thread left
    /// behind by an event (48 replacements, a reload, a monitor's night, a provider's session
    /// a day) passes this within a day.
    static let descriptorSlack = 2
    static let threadSlack = 1
    /// Journal lines a day: the default `log.gestures = true` writes about one line per
    /// gesture (its classification) plus the power, display and content lines; per gesture
    /// allowed, and the rest.
    static let linesPerGesture = 2.0
    static let otherLinesPerDay = 400
}

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("flickd-soak-month-\(getpid())").path
try FileManager.default.createDirectory(atPath: folder + "/cache", withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: folder) }

let wallStart = Date()
let kiosk = try Kiosk(folder: folder)
var visitors = Visitors(seed: seed, panel: Size(width: Double(Kiosk.panel.width), height: Double(Kiosk.panel.height)))
var failures: [String] = []
/// Kinds of failure seen (the text without its numbers): the first of each kind is printed
/// even after the first 20 lines, so one bound broken every hour hides no other.
var failureKinds: Set<String> = []
var failureCount = 0
@MainActor func fail(_ text: String) {
    failureCount += 1
    if failures.count < 100 { failures.append(text) }
    let kind = String(text.drop { $0 != ":" }.drop { $0 != ":" }.drop { $0 != ":" }.filter { !$0.isNumber }.prefix(60))
    if failureCount <= 20 || failureKinds.insert(kind).inserted { print("FAIL \(text)") }
}

let perHour = perDay / Kiosk.onHours.count
var baseline: [Int: Checkpoint] = [:]
var warmupResident = 0, warmupMappings = 0, warmupDescriptors = 0, warmupThreads = 0, warmupCache = 0, warmupBuffers = 0
var firstDayResident = 0, lastDayResident = 0, peakResident = 0
var linesAtDayStart = 0, gesturesAtDayStart = 0, maxLinesPerDay = 0
print("day  wall s  RSS MiB  fds thr maps  cache  gestures  journal lines")

for day in 0..<days {
    for h in 0..<24 {
        let t0 = Kiosk.start + .seconds(Int64(day * 86400 + h * 3600))
        kiosk.run(until: t0)
        // The hour's check.
        let sample = Checkpoint(kiosk)
        for wrong in Checkpoint.invariants(kiosk, day: day, hour: h) { fail("\(Kiosk.clock(t0)): \(wrong)") }
        for wrong in kiosk.problems.prefix(5) { fail(wrong) }
        kiosk.clearProblems()
        if !kiosk.journal.errors.isEmpty { fail("\(Kiosk.clock(t0)): journal errors: \(kiosk.journal.errors.prefix(3))") }
        kiosk.journal.clearErrors()
        let rss = sample.process.residentBytes
        peakResident = max(peakResident, rss)
        if day == 0 {
            baseline[h] = sample
            warmupResident = max(warmupResident, rss)
            warmupMappings = max(warmupMappings, sample.process.mappings)
            warmupDescriptors = max(warmupDescriptors, sample.process.descriptors)
            warmupThreads = max(warmupThreads, sample.process.threads)
            warmupCache = max(warmupCache, sample.cacheFiles)
            warmupBuffers = max(warmupBuffers, sample.composedBuffers)
        } else if let base = baseline[h] {
            let at = Kiosk.clock(t0)
            if rss > warmupResident + Bounds.residentSlack {
                fail("\(at): resident \(rss >> 10) KiB, the warm-up day's highest \(warmupResident >> 10) KiB + \(Bounds.residentSlack >> 10)")
            }
            if sample.process.descriptors > warmupDescriptors + Bounds.descriptorSlack {
                fail("\(at): \(sample.process.descriptors) descriptors open, day 1's most \(warmupDescriptors) + \(Bounds.descriptorSlack): \(ProcessProbe.descriptorTargets().joined(separator: " "))")
            }
            if sample.process.threads > warmupThreads + Bounds.threadSlack {
                fail("\(at): \(sample.process.threads) threads, day 1's most \(warmupThreads) + \(Bounds.threadSlack)")
            }
            if sample.process.mappings > warmupMappings + Bounds.mappingSlack {
                fail("\(at): \(sample.process.mappings) mappings, day 1's most \(warmupMappings) + \(Bounds.mappingSlack)")
            }
            if sample.cacheFiles > warmupCache { fail("\(at): \(sample.cacheFiles) files in the pyramid cache, day 1's most \(warmupCache)") }
            if sample.folderFiles != base.folderFiles { fail("\(at): \(sample.folderFiles) files beside the content, \(base.folderFiles) on day 1") }
            if sample.timers != base.timers { fail("\(at): \(sample.timers) deadlines pending, \(base.timers) on day 1 at this hour") }
            if sample.watched != base.watched { fail("\(at): the content host watches \(sample.watched) descriptors, \(base.watched) on day 1") }
            if sample.composedBuffers > warmupBuffers { fail("\(at): \(sample.composedBuffers) composed buffers, day 1's most \(warmupBuffers)") }
        }
        if sample.cachedTileBytes > kiosk.configuration.cacheMegabytes << 20 {
            fail("\(Kiosk.clock(t0)): \(sample.cachedTileBytes) bytes of tiles cached, over content.cache_mb")
        }
        if day == 0 && h == 23 { firstDayResident = rss }
        if day == days - 1 && h == 23 { lastDayResident = rss }
        if h == 0 && day > 0 {
            let lines = kiosk.journal.lines - linesAtDayStart, gestures = visitors.total - gesturesAtDayStart
            maxLinesPerDay = max(maxLinesPerDay, lines)
            let budget = Int(Double(gestures) * Bounds.linesPerGesture) + Bounds.otherLinesPerDay
            if lines > budget { fail("day \(day): \(lines) journal lines, over the budget of \(budget) for \(gestures) gestures") }
            linesAtDayStart = kiosk.journal.lines
            gesturesAtDayStart = visitors.total
        }

        // The hour's events.
        kiosk.run(until: t0 + .seconds(1))
        if h == 6 { try kiosk.plug() }
        if h == 23 { try kiosk.unplug() }
        let open = Kiosk.onHours.contains(h)
        let quota = perHour + (h == Kiosk.onHours.lowerBound ? perDay - perHour * Kiosk.onHours.count : 0)
        var done = 0
        func segment(_ from: Int64, _ to: Int64, share: Double) {
            guard open else { return }
            let want = Int((Double(quota) * share).rounded(.up))
            done += kiosk.visit(&visitors, from: t0 + .seconds(from), to: t0 + .seconds(to), quota: min(want, quota - done))
        }
        segment(5, 600, share: 0.18)
        kiosk.run(until: t0 + .seconds(600))
        if h == 3 { try kiosk.reload(day: day) }
        if h == 12 { try kiosk.connectProvider() }
        if h == 13 { try kiosk.killProvider() }
        segment(610, 1800, share: 0.36)
        kiosk.run(until: t0 + .seconds(1800))
        try kiosk.replaceContent()
        segment(1802, 2400, share: 0.18)
        // Nobody for 3 minutes: the panel goes off after 120 s, the next visitor's touch wakes it.
        if open {
            kiosk.run(until: t0 + .seconds(2580))
            if kiosk.pipeline.power?.state != .off { fail("\(Kiosk.clock(kiosk.now)): the panel is still \(kiosk.pipeline.power?.state as Any) 3 minutes after the last touch") }
            kiosk.wake(&visitors, at: t0 + .seconds(2580))
            if kiosk.pipeline.power?.state != .on { fail("\(Kiosk.clock(kiosk.now)): a touch did not wake the panel") }
        }
        if h == 22 { kiosk.wake(&visitors, at: t0 + .seconds(1200)) }
        segment(2582, 3540, share: 1)
    }
    let p = ProcessProbe.now()
    let wall = Date().timeIntervalSince(wallStart)
    print(String(format: "%3d  %6.1f  %7.1f  %3d %3d %4d  %5d  %8d  %d", day + 1, wall, Double(p.residentBytes) / 1048576,
                 p.descriptors, p.threads, p.mappings, ProcessProbe.entries(kiosk.cacheDirectory, recursive: true),
                 visitors.total, kiosk.journal.lines))
    // A line a day as it ends, also when the output is a file or a pipe (CI's log, `tee`).
    fflush(nil)
}
kiosk.run(until: Kiosk.start + .seconds(Int64(days * 86400)))

let wall = Date().timeIntervalSince(wallStart)
print("""

    \(days) days in \(String(format: "%.1f", wall)) s of wall time (\(String(format: "%.0f", Double(days) * 86400 / wall))× real time)
    gestures: \(visitors.total) (\(Visitors.Kind.allCases.map { "\($0.rawValue) \(visitors.counts[$0] ?? 0)" }.joined(separator: ", ")))
    frames presented: \(kiosk.frames); wake touches: \(kiosk.wakes); content replaced: \(kiosk.replacements); reloads: \(kiosk.reloads)
    monitor unplugged and back: \(kiosk.unplugs); provider sessions: \(kiosk.app.sessions) (\(kiosk.app.answered) tiles answered)
    resident: \(String(format: "%.1f", Double(firstDayResident) / 1048576)) MiB at the end of day 1, \
    \(String(format: "%.1f", Double(lastDayResident) / 1048576)) MiB at the end of day \(days), \
    peak \(String(format: "%.1f", Double(peakResident) / 1048576)) MiB
    journal: \(kiosk.journal.lines) lines (gestures \(kiosk.journal.gestureLines), notices \(kiosk.journal.noticeLines), \
    content \(kiosk.journal.contentLines)); at most \(maxLinesPerDay) in a day
    """)
if failures.isEmpty {
    print("PASS: every hour within its bounds")
} else {
    print("FAIL: \(failureCount) broken bound(s) or invariant(s) at hourly checks; the first: \(failures[0])")
    exit(1)
}
