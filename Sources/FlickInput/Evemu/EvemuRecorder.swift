import FlickCore
import FlickSystem
import Glibc

/// `flickd record`: a device's events written to a file as evemu-record text as they arrive —
/// the header (`N: I: P: B: A:`), then an `E:` line per event, times from the first event (as
/// evemu-record writes them) — so `flickd replay` of the file plays what the panel sent.
///
/// The recording opens with the device's last values (`EventReader.lastValues`), so a replay
/// knows what the kernel will not repeat. Every read is written as whole lines at once, so the
/// file stops at a line's end whenever it is stopped. A `SYN_DROPPED` is written as the kernel sends it, closed by a `SYN_REPORT`, and
/// libevdev's resynchronising events follow: the replay's decoder reconciles as the live one did.
public final class EvemuRecorder {
    /// The device.
    public let reader: any EventReader
    /// The file written.
    public let path: String
    /// Events written so far.
    public private(set) var events = 0
    /// `SYN_DROPPED`s met so far.
    public private(set) var dropped = 0

    private var writer: EvemuWriter
    private var fd: Int32
    private var origin: Instant?
    private var last = Instant.zero

    /// Creates (or empties) `path` and writes the device's header. Only a regular file or a
    /// pipe: `flickd record /dev/input/event3` with FILE forgotten must not write text into a
    /// device node (into the very touchscreen, as input events).
    /// - Throws: `EvemuError` (I/O) when the file cannot be created or written, or is no file.
    public init(reader: any EventReader, path: String) throws(EvemuError) {
        self.reader = reader
        self.path = path
        writer = EvemuWriter(description: reader.description)
        fd = Glibc.open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw EvemuError(path: path, step: "cannot create", cause: .current("open", path))
        }
        var info = stat()
        let kind = fstat(fd, &info) == 0 ? info.st_mode & S_IFMT : 0
        guard kind == S_IFREG || kind == S_IFIFO else {
            Glibc.close(fd)
            fd = -1
            throw EvemuError(path: path, line: 0, message: "not a file to record into (a device node?): name the recording's FILE",
                             kind: .usage)
        }
        // Emptied only now that it is known to be a file.
        if kind == S_IFREG { _ = ftruncate(fd, 0) }
        try write(writer.header)
        for e in reader.lastValues() { writer.event(time(e.time), e.type, e.code, e.value) }
        try write(writer.takeEventsText())
    }

    deinit { if fd >= 0 { Glibc.close(fd) } }

    /// Reads everything the device has ready and appends it to the file.
    /// - Returns: whether the device is gone (unplugged): the recording should end.
    /// - Throws: `EvemuError` (I/O) when the file cannot be written.
    @discardableResult
    public func drain() throws(EvemuError) -> Bool {
        let (items, removed) = reader.read()
        for item in items {
            switch item {
            case .event(let e):
                let t = time(e.time)
                writer.event(t, e.type, e.code, e.value)
                events += 1
            case .dropped:
                dropped += 1
                writer.event(last, EventCode.EV_SYN, EventCode.SYN_DROPPED, 0)
                writer.report(last)
            }
        }
        try write(writer.takeEventsText())
        return removed
    }

    /// Closes the file.
    /// - Throws: `EvemuError` (I/O) when the last data cannot reach the disk.
    public func finish() throws(EvemuError) {
        guard fd >= 0 else { return }
        let synced = fsync(fd) == 0 || errno == EINVAL   // EINVAL: a pipe or a terminal
        let failure = SystemError.current("fsync", path)
        Glibc.close(fd)
        fd = -1
        if !synced { throw EvemuError(path: path, step: "cannot write", cause: failure) }
    }

    /// An event's time from the first event's, as evemu-record writes it (never before it).
    private func time(_ t: Instant) -> Instant {
        let start = origin ?? t
        origin = start
        last = max(last, Instant(nanoseconds: max(0, (t - start).nanoseconds)))
        return max(Instant.zero, Instant(nanoseconds: (t - start).nanoseconds))
    }

    private func write(_ text: String) throws(EvemuError) {
        do {
            try writeWhole(Array(text.utf8), to: fd, context: path)
        } catch {
            throw EvemuError(path: path, step: "cannot write", cause: error)
        }
    }
}
