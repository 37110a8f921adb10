import FoundationEssentials

/// The state file's layout: two slots of one size, a multiple of 4096 bytes, each one line of
/// JSON padded with spaces:
///
///     {"seq":41,"check":"9f2c…","state":{"content":…,"offsetX":…}}      ⏎
///     {"seq":42,"check":"03ab…","state":{"content":…,"offsetX":…}}      ⏎
///
/// A save overwrites the slot that does not hold the newest state, in place, and syncs its data:
/// one page written, with no new file, inode, folder entry or bitmap to dirty (an atomic replace
/// of a new file costs 23–36 KiB on ext4, RELIABILITY.md "The SD card"). A power cut in the
/// middle of a save can tear only that slot; its check (FNV-1a of its sequence number and its
/// state's bytes) tells it, and the other slot is whole. The file stays text: `jq . state.json`
/// and `grep` read it.
///
/// A file of the first layout (one JSON object, atomically replaced) is read as it is and
/// replaced by this layout at the first save.
struct StateSlots: Equatable {
    /// A whole slot: its sequence number and the state's JSON.
    struct Slot: Equatable {
        let sequence: UInt64
        let payload: Data
    }

    /// The page a slot is a multiple of, so that a slot's write never touches the other's.
    static let page = 4096

    /// The size of each slot.
    let slotSize: Int
    /// Each slot, nil where it is blank or torn.
    let slots: [Slot?]

    /// Reads `file` as two slots: nil when it is not that layout (the first layout, or
    /// something else), so a caller tells the two apart.
    init?(parsing file: Data) {
        let size = file.count / 2
        guard size > 0, size % Self.page == 0, file.count == 2 * size else { return nil }
        let halves = [file.prefix(size), file.suffix(size)]
        guard halves.allSatisfy({ $0.last == UInt8(ascii: "\n") }) else { return nil }
        slotSize = size
        slots = halves.map(Self.slot(in:))
    }

    /// The slot with the highest sequence number.
    var newest: Slot? {
        slots.compactMap { $0 }.max { $0.sequence < $1.sequence }
    }

    /// The slot a save overwrites: a blank or torn one, else the older.
    var nextIndex: Int {
        guard let first = slots[0] else { return 0 }
        guard let second = slots[1] else { return 1 }
        return first.sequence <= second.sequence ? 0 : 1
    }

    /// The size of the slots for `payload`: the smallest multiple of the page that holds it.
    static func slotSize(for payload: Data) -> Int {
        let needed = record(sequence: .max, payload: payload).count + 1
        return (needed + page - 1) / page * page
    }

    /// Slot `sequence` holding `payload`, padded to `slotSize` (at least `slotSize(for:)`).
    static func slot(sequence: UInt64, payload: Data, slotSize: Int) -> Data {
        var bytes = record(sequence: sequence, payload: payload)
        precondition(bytes.count < slotSize, "the slot is too small for the state")
        bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: slotSize - 1 - bytes.count))
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }

    /// A slot that holds nothing.
    static func blank(slotSize: Int) -> Data {
        Data(repeatElement(UInt8(ascii: " "), count: slotSize - 1)) + Data([UInt8(ascii: "\n")])
    }

    private static func record(sequence: UInt64, payload: Data) -> Data {
        Data(#"{"seq":\#(sequence),"check":"\#(check(sequence, payload))","state":"#.utf8) + payload + Data("}".utf8)
    }

    /// The check of a slot: over its sequence number and its state, so neither can be torn from
    /// the other.
    private static func check(_ sequence: UInt64, _ payload: Data) -> String {
        check(Data("\(sequence):".utf8) + payload)
    }

    /// 64-bit FNV-1a as 16 hex digits: a torn write's detector, not a defence against anyone.
    static func check(_ bytes: Data) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// The slot in `bytes`, nil when blank or torn: the record's frame is read byte by byte and
    /// the check is recomputed over the state's bytes exactly as they were written.
    private static func slot(in bytes: Data) -> Slot? {
        let line = Array(bytes)
        var end = line.count
        while end > 0, line[end - 1] == UInt8(ascii: " ") || line[end - 1] == UInt8(ascii: "\n") { end -= 1 }
        var at = 0
        func expect(_ text: String) -> Bool {
            let want = Array(text.utf8)
            guard end - at >= want.count, Array(line[at..<at + want.count]) == want else { return false }
            at += want.count
            return true
        }
        guard expect(#"{"seq":"#) else { return nil }
        let digits = line[at..<end].prefix { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
        guard let sequence = UInt64(String(decoding: digits, as: UTF8.self)) else { return nil }
        at += digits.count
        guard expect(#","check":""#), end - at >= 16 else { return nil }
        let check = String(decoding: line[at..<at + 16], as: UTF8.self)
        at += 16
        guard expect(#"","state":"#), end - at >= 1, line[end - 1] == UInt8(ascii: "}") else { return nil }
        let payload = Data(line[at..<end - 1])
        guard Self.check(sequence, payload) == check else { return nil }
        return Slot(sequence: sequence, payload: payload)
    }
}
