import FlickCore
@testable import FlickDaemon
import Foundation
import Testing

/// When the saved state is written (`StateSaving`): what a restart needs, at rest, a bounded
/// number of times an hour, at stop, and never while idle. The writes are counted where the
/// file would be written; time is the test's, and the timer the daemon would arm is fired here.
@Suite struct StateSavingTests {
    /// The files written, in order, each decoded.
    final class Writes {
        var states: [PersistedState] = []
    }

    /// The daemon's side of a kiosk: the state timer armed where `StateSaving` asks, fired when
    /// time passes it, and a save at stop.
    final class Kiosk {
        let writes: Writes
        let saving: StateSaving
        let path: String
        var deadline: Instant?
        var offsetY = 0.0
        var state: PersistedState { PersistedState(content: "map.png|3000|3000", offsetX: 0, offsetY: offsetY, zoomScale: 1) }

        /// A kiosk whose state file holds `existing` at start.
        init(_ configure: (inout Configuration) -> Void, existing: PersistedState? = nil) throws {
            var configuration = Configuration()
            configure(&configuration)
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("flickd-saving-\(UUID()).json").path
            self.path = path
            if let existing { try StateStore(path: path).save(existing) }
            let writes = Writes()
            self.writes = writes
            saving = StateSaving(store: StateStore(path: path), configuration: configuration, start: .seconds(0)) { data in
                writes.states.append(try! JSONDecoder().decode(PersistedState.self, from: data))
            }
        }

        deinit { try? FileManager.default.removeItem(atPath: path) }

        /// Time passes to `t`, firing the timer if it falls due.
        func advance(to t: Instant) throws {
            guard let at = deadline, at <= t else { return }
            deadline = nil
            try saving.save(at: at) { state }
        }

        func changed(_ change: StateSaving.Change, at t: Instant) throws {
            try advance(to: t)
            if let at = saving.changed(change, at: t) { deadline = at }
        }

        /// SIGTERM: what is pending is written.
        func stop(at t: Instant) throws {
            try advance(to: t)
            deadline = nil
            try saving.save(at: t) { state }
        }

        /// A flick every 1.5 s for `seconds` from `start`, each coming to rest somewhere else.
        func flicks(from start: Double, seconds: Double) throws {
            var t = start
            while t < start + seconds {
                try advance(to: .seconds(t + 1))
                offsetY = (offsetY + 300).truncatingRemainder(dividingBy: 2700)
                try changed(.view, at: .seconds(t + 1))
                t += 1.5
            }
        }
    }

    @Test func atHomeGesturesWriteNothingAndAContentChangeOnce() throws {
        let kiosk = try Kiosk { $0.stateRestore = .home }
        try kiosk.flicks(from: 0, seconds: 3600)
        try kiosk.advance(to: .seconds(7200))
        #expect(kiosk.writes.states.isEmpty)
        try kiosk.changed(.content, at: .seconds(7200))
        try kiosk.flicks(from: 7200, seconds: 600)
        try kiosk.stop(at: .seconds(9000))
        #expect(kiosk.writes.states.count == 1)
    }

    @Test func theViewIsWrittenABoundedNumberOfTimesAnHourAndAtStop() throws {
        let kiosk = try Kiosk { $0.stateRestore = .view }
        #expect(kiosk.saving.restore == .view && Configuration().stateSaveInterval == .seconds(1800))
        try kiosk.flicks(from: 0, seconds: 3600)
        let inTheHour = kiosk.writes.states.count
        // One an interval from the start: one in the first hour, two in any later one (23–36 KiB
        // each to an ext4 file system: RELIABILITY.md, "The SD card").
        #expect(inTheHour == 1, "\(inTheHour) writes in an hour of 2400 flicks")
        try kiosk.flicks(from: 3600, seconds: 3600 * 3)
        #expect(kiosk.writes.states.count - inTheHour == 6, "\(kiosk.writes.states.count - inTheHour) writes in three hours")
        try kiosk.stop(at: .seconds(4 * 3600 + 1))
        #expect(kiosk.writes.states.count == inTheHour + 7)
        #expect(kiosk.writes.states.last == kiosk.state) // a clean restart loses nothing
    }

    /// Every 3600 s window holds at most 3600 / interval saves (two at the default), wherever
    /// it starts: the writes of six hours of flicks, looked at in every hour-long window.
    @Test func noHourHoldsMoreThanTwoSavesAtTheDefault() throws {
        var times: [Double] = []
        let kiosk = try Kiosk { $0.stateRestore = .view }
        var t = 0.0, last = 0
        while t < 6 * 3600 {
            kiosk.offsetY = (kiosk.offsetY + 300).truncatingRemainder(dividingBy: 2700)
            try kiosk.changed(.view, at: .seconds(t + 1))
            if kiosk.writes.states.count > last { times.append(t + 1); last = kiosk.writes.states.count }
            t += 1.5
        }
        #expect(times.count == 11, "\(times)")
        for (i, start) in times.enumerated() {
            let within = times[i...].prefix { $0 < start + 3600 }.count
            #expect(within <= 2, "\(within) saves in the hour from \(start) s")
        }
    }

    @Test func theViewIsWrittenAtStopWithinTheFirstInterval() throws {
        let kiosk = try Kiosk { $0.stateRestore = .view }
        try kiosk.flicks(from: 0, seconds: 600)
        #expect(kiosk.writes.states.isEmpty)
        try kiosk.stop(at: .seconds(601))
        #expect(kiosk.writes.states == [kiosk.state]) // a clean restart loses nothing
    }

    @Test func withNoIntervalEachRestIsWritten() throws {
        let kiosk = try Kiosk { $0.stateRestore = .view; $0.stateSaveInterval = .zero; $0.stateSaveDelay = .milliseconds(100) }
        try kiosk.flicks(from: 0, seconds: 60)
        try kiosk.advance(to: .seconds(61))
        #expect(kiosk.writes.states.count == 40)
    }

    @Test func idleWritesNothingNorDoesAStopWithNothingNew() throws {
        let kiosk = try Kiosk({ $0.stateRestore = .view }, existing: PersistedState(content: "map.png|3000|3000", offsetX: 0, offsetY: 0, zoomScale: 1))
        // At rest where the file already says: the same bytes, not written again.
        try kiosk.changed(.view, at: .seconds(5))
        try kiosk.advance(to: .seconds(3600))
        try kiosk.stop(at: .seconds(86_400))
        #expect(kiosk.writes.states.isEmpty)
        kiosk.offsetY = 300
        try kiosk.changed(.view, at: .seconds(86_401))
        try kiosk.advance(to: .seconds(90_000))
        #expect(kiosk.writes.states.count == 1)
        try kiosk.stop(at: .seconds(100_000))
        #expect(kiosk.writes.states.count == 1)
    }

    @Test func aContentChangeIsNotHeldByTheInterval() throws {
        let kiosk = try Kiosk { $0.stateRestore = .view }
        try kiosk.flicks(from: 0, seconds: 3)
        let before = kiosk.writes.states.count
        try kiosk.changed(.content, at: .seconds(10))
        try kiosk.advance(to: .seconds(11))
        #expect(kiosk.writes.states.count == before + 1)
    }

    @Test func theIntervalIsAKeyInSecondsUpToADay() throws {
        #expect(try ConfigLoader.parse("[state]\nsave_interval_s = 0\n", path: "f").stateSaveInterval == .zero)
        #expect(try ConfigLoader.parse("[state]\nsave_interval_s = 90\n", path: "f").stateSaveInterval == .seconds(90))
        #expect(throws: (any Error).self) { try ConfigLoader.parse("[state]\nsave_interval_s = 86401\n", path: "f") }
    }
}
