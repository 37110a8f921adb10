import FlickCore
@testable import FlickInput
import FlickSystem
import Foundation
import Glibc
import Testing

/// Acceptance 5: hotplug through inotify on a temporary folder standing in for /dev/input, with
/// scripted readers standing in for libevdev: add, removal mid-gesture, re-add.
@Suite struct HotplugTests {
    /// A scripted device: what `read()` returns next. Its fd is a pipe's, so it is a real fd.
    final class FakeReader: EventReader {
        let path: String
        let description: DeviceDescription
        let fileDescriptor: Descriptor
        private let writeEnd: Descriptor
        var queued: [ReadItem] = []
        var removed = false
        var closed = false

        init(path: String, description: DeviceDescription) {
            var fds: [Int32] = [0, 0]
            pipe(&fds)
            fileDescriptor = Descriptor(owning: fds[0])
            writeEnd = Descriptor(owning: fds[1])
            self.path = path
            self.description = description
        }

        func read() -> (items: [ReadItem], removed: Bool) {
            defer { queued.removeAll() }
            return (queued, removed)
        }

        func close() {
            guard !closed else { return }
            closed = true
        }
    }

    /// The devices a test has: node name → what opening it gives.
    final class Devices {
        var made: [FakeReader] = []
        var describe: [String: DeviceDescription] = [:]

        func opener() -> TouchInput.Opener {
            { path, _ throws(InputDeviceError) in
                let name = (path as NSString).lastPathComponent
                guard let d = self.describe[name] else { throw InputDeviceError(path: path, reason: "cannot open: Permission denied") }
                let reader = FakeReader(path: path, description: d)
                self.made.append(reader)
                return reader
            }
        }
    }

    func touches(_ t: Double, _ events: [(UInt16, UInt16, Int32)]) -> [ReadItem] {
        events.map { .event(InputEvent(time: .seconds(t), type: $0.0, code: $0.1, value: $0.2)) }
            + [.event(InputEvent(time: .seconds(t), type: EventCode.EV_SYN, code: EventCode.SYN_REPORT, value: 0))]
    }

    let abs = EventCode.EV_ABS

    func touch(atPath path: String, contents: Data?) {
        #expect(FileManager.default.createFile(atPath: path, contents: contents))
    }

    @Test func addRemoveMidGestureAndReAdd() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let devices = Devices()
        devices.describe["event5"] = .slotTouchscreen(width: 800, height: 480)
        var mouse = DeviceDescription(name: "a mouse")
        mouse.enable(EventCode.EV_KEY, 0x110)
        devices.describe["event1"] = mouse
        touch(atPath: dir + "/event1", contents: nil)
        var logs: [String] = []
        let input = TouchInput(options: options(dir),
                               log: { logs.append($0) }, opener: devices.opener())
        #expect(input.devices.isEmpty)
        #expect(logs.contains { $0.contains("event1") && $0.contains("no absolute axes") })

        // Plugged in.
        touch(atPath: dir + "/event5", contents: nil)
        #expect(input.dispatch(now: .seconds(1)).isEmpty)
        #expect(input.devices == [dir + "/event5"] && input.fileDescriptors.count == 2)
        let first = try #require(devices.made.last)

        // A finger goes down and moves.
        first.queued = touches(2, [(abs, EventCode.ABS_MT_TRACKING_ID, 1), (abs, EventCode.ABS_MT_POSITION_X, 100),
                                   (abs, EventCode.ABS_MT_POSITION_Y, 100)])
            + touches(2.01, [(abs, EventCode.ABS_MT_POSITION_Y, 120)])
        let down = input.dispatch(now: .seconds(2.01))
        #expect(down.count == 2 && down[1].contacts.map(\.position) == [Point(x: 100, y: 120)])

        // Unplugged mid-drag: ENODEV on read, then the node goes.
        first.removed = true
        try FileManager.default.removeItem(atPath: dir + "/event5")
        let gone = input.dispatch(now: .seconds(2.5))
        #expect(gone.count == 1 && gone[0].cancelled == down[0].began && gone[0].contacts.isEmpty)
        #expect(gone[0].time == .seconds(2.5))
        #expect(first.closed && input.devices.isEmpty && input.fileDescriptors.count == 1)

        // Back again: reopened without a restart, and a new touch works.
        touch(atPath: dir + "/event5", contents: nil)
        _ = input.dispatch(now: .seconds(3))
        let second = try #require(devices.made.last)
        #expect(second !== first && input.devices == [dir + "/event5"])
        second.queued = touches(3.1, [(abs, EventCode.ABS_MT_TRACKING_ID, 7), (abs, EventCode.ABS_MT_POSITION_X, 10),
                                      (abs, EventCode.ABS_MT_POSITION_Y, 20)])
        let again = input.dispatch(now: .seconds(3.1))
        #expect(again.count == 1 && again[0].began.count == 1 && !down[0].began.contains(again[0].began[0]))
    }

    @Test func twoTouchscreensFeedOneStream() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let devices = Devices()
        for name in ["event2", "event3"] {
            devices.describe[name] = .slotTouchscreen(width: 800, height: 480)
            touch(atPath: dir + "/" + name, contents: nil)
        }
        let input = TouchInput(options: options(dir),
                               opener: devices.opener())
        #expect(input.devices.count == 2)
        for (i, reader) in devices.made.enumerated() {
            reader.queued = touches(1 + Double(i) / 100, [(abs, EventCode.ABS_MT_TRACKING_ID, 1),
                                                          (abs, EventCode.ABS_MT_POSITION_X, 5), (abs, EventCode.ABS_MT_POSITION_Y, 5)])
        }
        let frames = input.dispatch(now: .seconds(2))
        #expect(frames.count == 2 && frames[0].time < frames[1].time)
        #expect(frames[0].began != frames[1].began)
    }

    @Test func aNodeThatCannotBeOpenedIsRetriedWhenItChanges() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let devices = Devices()
        touch(atPath: dir + "/event4", contents: nil)
        var logs: [String] = []
        let input = TouchInput(options: options(dir),
                               log: { logs.append($0) }, opener: devices.opener())
        #expect(input.devices.isEmpty && logs.contains { $0.contains("Permission denied") })
        // udev fixes the permissions: IN_ATTRIB.
        devices.describe["event4"] = .slotTouchscreen(width: 800, height: 480)
        chmod(dir + "/event4", 0o660)
        _ = input.dispatch(now: .seconds(1))
        #expect(input.devices == [dir + "/event4"])
    }

    @Test func syncDroppedFromTheReaderReconciles() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let devices = Devices()
        devices.describe["event0"] = .slotTouchscreen(width: 800, height: 480)
        touch(atPath: dir + "/event0", contents: nil)
        var logs: [String] = []
        let input = TouchInput(options: options(dir),
                               log: { logs.append($0) }, opener: devices.opener())
        let reader = try #require(devices.made.first)
        reader.queued = touches(1, [(abs, EventCode.ABS_MT_TRACKING_ID, 1), (abs, EventCode.ABS_MT_POSITION_X, 5),
                                    (abs, EventCode.ABS_MT_POSITION_Y, 5)])
        let first = input.dispatch(now: .seconds(1))
        // libevdev: SYN_DROPPED, then the state replayed: the finger is gone.
        reader.queued = [.dropped] + touches(1.5, [(abs, EventCode.ABS_MT_TRACKING_ID, -1)])
        let resync = input.dispatch(now: .seconds(1.5))
        #expect(resync.count == 1 && resync[0].cancelled == first[0].began)
        #expect(logs.contains { $0.contains("SYN_DROPPED") })
    }

    @Test func udevMatrixAppliesUnlessTheConfigHasOne() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let devices = Devices()
        devices.describe["event0"] = .slotTouchscreen(width: 800, height: 480)
        touch(atPath: dir + "/event0", contents: nil)
        let mirror: [Double] = [-1, 0, 1, 0, 1, 0]
        func firstTouch(_ mapping: TouchMapping) throws -> Point {
            let input = TouchInput(options: options(dir, mapping: mapping),
                                   opener: devices.opener(), calibration: { _ in mirror })
            let reader = try #require(devices.made.last)
            reader.queued = touches(1, [(abs, EventCode.ABS_MT_TRACKING_ID, 1), (abs, EventCode.ABS_MT_POSITION_X, 0),
                                        (abs, EventCode.ABS_MT_POSITION_Y, 0)])
            return try #require(input.dispatch(now: .seconds(1)).first?.contacts.first?.position)
        }
        #expect(try firstTouch(TouchMapping()) == Point(x: 799, y: 0))                       // udev's mirror
        #expect(try firstTouch(TouchMapping(calibration: [1, 0, 0, 0, 1, 0])) == Point(x: 0, y: 0)) // the config's wins
        #expect(UdevCalibration.parse("1 0 0 0 1 0") == [1, 0, 0, 0, 1, 0])
        #expect(UdevCalibration.parse("1 0 0 0 1") == nil && UdevCalibration.parse("1 0 0 0 1 x") == nil)
    }

    @Test func inventoryListsEveryNodeWithItsVerdict() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let devices = Devices()
        devices.describe["event0"] = .slotTouchscreen(width: 800, height: 480)
        for name in ["event0", "event9", "mouse0"] { touch(atPath: dir + "/" + name, contents: nil) }
        let opener = devices.opener()
        let reports = DeviceInventory.list(directory: dir) { path throws(InputDeviceError) in try opener(path, false) }
        #expect(reports.map(\.path) == [dir + "/event0", dir + "/event9"])
        #expect(reports[0].verdict.isTouchscreen && reports[0].verdict.reason.contains("INPUT_PROP_DIRECT"))
        #expect(!reports[1].verdict.isTouchscreen && reports[1].verdict.reason.contains("Permission denied"))
    }
}

/// Options over a test folder. These tests dispatch at the touches' own kernel times, which the
/// live loop never does (it wakes after the stamp and arms the phantom check's deadline): they
/// take no minimum duration, so no frame waits for a deadline they do not run. Touches of one
/// report are still phantoms; the hold-back itself is `PhantomTouchFilterTests`'.
private func options(_ dir: String, mapping: TouchMapping = TouchMapping()) -> TouchInputOptions {
    var options = TouchInputOptions(directory: dir, mapping: mapping, outputSize: Size(width: 800, height: 480))
    options.minimumTouchDuration = .zero
    return options
}
