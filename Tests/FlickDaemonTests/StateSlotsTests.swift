@testable import FlickDaemon
import Foundation
import Testing

/// The state file's two slots (`StateSlots`): a save rewrites one page in place, a torn slot
/// leaves the other's state, and the first layout is read and replaced.
@Suite struct StateSlotsTests {
    let dir: String
    let store: StateStore

    init() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("flickd-slots-\(UUID())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        store = StateStore(path: dir + "/state.json")
    }

    func state(_ y: Double, content: String = "/srv/map.png|10|20") -> PersistedState {
        PersistedState(content: content, offsetX: 0, offsetY: y, zoomScale: 1)
    }

    func file() throws -> Data { try Data(contentsOf: URL(fileURLWithPath: store.path)) }

    func inode() throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: store.path)[.systemFileNumber] as? Int)
    }

    func slots() throws -> StateSlots { try #require(StateSlots(parsing: try file())) }

    @Test func aSaveRewritesTheOlderSlotInPlace() throws {
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try store.save(state(1))
        let first = try inode()
        #expect(try file().count == 8192)
        #expect(try slots().slots == [StateSlots.Slot(sequence: 1, payload: StateStore.encoded(state(1))), nil])
        try store.save(state(2))
        try store.save(state(3))
        #expect(try inode() == first, "no new file after the first save")
        #expect(try file().count == 8192)
        #expect(try slots().slots.map { $0?.sequence } == [3, 2])
        #expect(store.load().state == state(3) && store.load().warning == nil)
        #expect(store.savedPayload() == StateStore.encoded(state(3)))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["state.json"])
        // Text: each slot one line of JSON.
        let lines = String(decoding: try file(), as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 2 && lines.allSatisfy { $0.hasPrefix(#"{"seq":"#) })
    }

    @Test func aTornSlotLeavesTheOtherSlotsStateAndIsTheNextOneWritten() throws {
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try store.save(state(1))
        try store.save(state(2)) // slot 1
        var bytes = try file()
        // A write cut short: the new slot's first sector written, the rest still the old bytes.
        let newer = StateSlots.slot(sequence: 3, payload: StateStore.encoded(state(33)), slotSize: 4096)
        bytes.replaceSubrange(0..<40, with: newer.prefix(40))
        try bytes.write(to: URL(fileURLWithPath: store.path))
        #expect(try slots().slots[0] == nil && store.load().state == state(2) && store.load().warning == nil)
        // A flipped digit in the state, the frame intact.
        bytes = try file()
        let at = try #require(bytes[4096...].firstIndex(of: UInt8(ascii: "2")))
        bytes[at] = UInt8(ascii: "7")
        try bytes.write(to: URL(fileURLWithPath: store.path))
        #expect(store.load().state == nil && store.load().warning?.contains("neither slot is whole") == true)
        // Both torn: the next save starts again at slot 0, and the file stays in place.
        let first = try inode()
        try store.save(state(4))
        #expect(try inode() == first && store.load().state == state(4))
        try store.save(state(5))
        #expect(try slots().slots.map { $0?.sequence } == [1, 2])
        #expect(store.load().state == state(5))
    }

    @Test func aFileOfTheFirstLayoutIsReadAndReplacedAtTheFirstSave() throws {
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try StateStore.encoded(state(7)).write(to: URL(fileURLWithPath: store.path))
        #expect(store.load().state == state(7) && store.savedPayload() == StateStore.encoded(state(7)))
        try store.save(state(8))
        #expect(try file().count == 8192 && store.load().state == state(8))
    }

    @Test func aStateLongerThanAPageGetsLargerSlotsThatKeepTheirSize() throws {
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try store.save(state(1))
        let long = "/srv/" + String(repeating: "a", count: 5000) + ".png|1|2"
        try store.save(state(2, content: long))
        #expect(try file().count == 2 * 8192 && store.load().state == state(2, content: long))
        let grown = try inode()
        try store.save(state(3))
        #expect(try inode() == grown && file().count == 2 * 8192 && store.load().state == state(3))
    }

    @Test func theCheckIsFNV1a() {
        // The published test vectors of 64-bit FNV-1a.
        #expect(StateSlots.check(Data()) == "cbf29ce484222325")
        #expect(StateSlots.check(Data("a".utf8)) == "af63dc4c8601ec8c")
        #expect(StateSlots.check(Data("foobar".utf8)) == "85944171f73967e8")
    }
}
