import FlickCore
@testable import FlickInput
import Testing

/// Acceptance 3: a tap at each corner lands where expected for every rotation and a matrix.
@Suite struct MappingTests {
    let size = Size(width: 800, height: 480)
    /// A device whose axes are not the screen's: 0…4095 both ways.
    let device: DeviceDescription = {
        var d = DeviceDescription.slotTouchscreen(width: 4096, height: 4096)
        d.name = "square-ranged panel"
        return d
    }()

    /// A one-frame tap at raw (x, y), decoded and mapped.
    func tap(_ x: Int32, _ y: Int32, _ mapping: TouchMapping) throws -> Point {
        var w = EvemuWriter(description: device)
        let t = SlotScript.t
        w.abs(t(0), EventCode.ABS_MT_TRACKING_ID, 1)
        w.abs(t(0), EventCode.ABS_MT_POSITION_X, x)
        w.abs(t(0), EventCode.ABS_MT_POSITION_Y, y)
        w.report(t(0))
        w.abs(t(50), EventCode.ABS_MT_TRACKING_ID, -1)
        w.report(t(50))
        let recording = try EvemuRecording.parse(w.text, path: "corner.evemu")
        let f = try frames(of: recording, mapping: mapping, size: size)
        return try #require(f.first?.contacts.first?.position)
    }

    // Raw corners: top-left, top-right, bottom-left, bottom-right of the touch device.
    let corners: [(Int32, Int32)] = [(0, 0), (4095, 0), (0, 4095), (4095, 4095)]
    let tl = Point(x: 0, y: 0), tr = Point(x: 799, y: 0), bl = Point(x: 0, y: 479), br = Point(x: 799, y: 479)

    @Test(arguments: [0, 90, 180, 270])
    func cornersLandOnScreenCorners(rotation: Int) throws {
        let expected: [Point] = switch rotation {
        case 90: [tr, br, tl, bl]     // the device's x runs down the screen
        case 180: [br, bl, tr, tl]
        case 270: [bl, tl, br, tr]
        default: [tl, tr, bl, br]
        }
        for (corner, want) in zip(corners, expected) {
            #expect(try tap(corner.0, corner.1, TouchMapping(rotation: rotation)) == want, "raw \(corner)")
        }
    }

    @Test func flipsMirrorAfterRotation() throws {
        #expect(try tap(0, 0, TouchMapping(flipX: true)) == tr)
        #expect(try tap(0, 0, TouchMapping(flipY: true)) == bl)
        #expect(try tap(0, 0, TouchMapping(rotation: 90, flipX: true)) == tl)
    }

    @Test func calibrationMatrixFollowsLibinput() throws {
        // Swap the axes and shrink into the middle half: x' = 0.5·y + 0.25, y' = 0.5·x + 0.25.
        let m = TouchMapping(calibration: [0, 0.5, 0.25, 0.5, 0, 0.25])
        let p = try tap(4095, 0, m)     // normalised (1, 0) → (0.25, 0.75)
        #expect(abs(p.x - 0.25 * 799) < 1e-9 && abs(p.y - 0.75 * 479) < 1e-9)
        let q = try tap(0, 4095, m)     // (0, 1) → (0.75, 0.25)
        #expect(abs(q.x - 0.75 * 799) < 1e-9 && abs(q.y - 0.25 * 479) < 1e-9)
        // Then rotated by 180: (0.25, 0.75) → (0.75, 0.25).
        let r = try tap(4095, 0, TouchMapping(rotation: 180, calibration: m.calibration))
        #expect(abs(r.x - 0.75 * 799) < 1e-9 && abs(r.y - 0.25 * 479) < 1e-9)
    }

    @Test func invalidMappingsAreRecognised() {
        #expect(TouchMapping(rotation: 45).isValid == false)
        #expect(TouchMapping(calibration: [1, 0, 0]).isValid == false)
        #expect(TouchMapping(calibration: [1, 0, 0, 0, .nan, 0]).isValid == false)
        #expect(TouchMapping(rotation: 270, calibration: [1, 0, 0, 0, 1, 0]).isValid)
    }

    @Test func slopInMillimetresFromTheResolution() throws {
        // 800 px over 0…799 at 10 units/mm: 79.9 mm, so ~10 px/mm on both axes.
        let d = DeviceDescription.slotTouchscreen(width: 800, height: 480, resolution: 10)
        let t = try #require(TouchTransform(description: d, mapping: TouchMapping(), outputSize: size))
        #expect(abs(try #require(t.pixelsPerMillimetre) - 10) < 1e-9)
        let none = try #require(TouchTransform(description: .slotTouchscreen(width: 800, height: 480), mapping: TouchMapping(),
                                               outputSize: size))
        #expect(none.pixelsPerMillimetre == nil)
    }
}
