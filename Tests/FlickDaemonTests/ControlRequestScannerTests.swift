import FlickCore
import Foundation
import Testing
@testable import FlickControl

/// `ControlRequest.decode` reads plain lines itself (`ControlRequestScanner`) and hands the rest
/// to JSONDecoder: every line, of every shape and broken in every way tried here, decodes to
/// the request JSONDecoder makes of it, or is refused with JSONDecoder's error.
@Suite struct ControlRequestScannerTests {
    /// One line of each request shape, as apps and flickctl write them.
    static let shapes: [String] = [
        #"{"cmd":"invalidate","x":0,"y":120,"width":1920,"height":48}"#,
        #"{"id": 33, "cmd": "invalidate", "x": 0.5, "y": -12.25, "width": 1920, "height": 48}"#,
        #"{"cmd":"tile","request":7}"#,
        #"{"id":31,"cmd":"tile","request":7,"drawn":false}"#,
        #"{"id":32,"cmd":"tile","request":8,"drawn":true}"#,
        ##"{"id":1,"cmd":"provide","width":7680,"height":200000,"tileSize":256,"slots":8,"detail":2,"opaque":false,"background":"#102030","name":"maps.v2"}"##,
        #"{"id":2,"cmd":"status"}"#,
        #"{"cmd":"set-offset","x":0,"y":480,"animated":true}"#,
        #"{"cmd":"set-zoom","scale":1.75,"animated":false}"#,
        #"{"cmd":"scroll-rect-to-visible","x":10,"y":20,"width":30,"height":40}"#,
        #"{"cmd":"page","page":3}"#,
        #"{"cmd":"load","path":"/srv/kiosk/menu.png"}"#,
        #"{"cmd":"snapshot","path":"shot.png"}"#,
        #"{"cmd":"touch-overlay","enabled":true}"#,
        #"{"cmd":"scroll-enabled","enabled":false}"#,
        #"{"cmd":"display","state":"dim"}"#,
        #"{"id":40,"cmd":"claim","contact":3}"#,
        #"{"cmd":"subscribe","events":["didScroll","tap"]}"#,
        " \t{ \"cmd\" : \"tile\" , \"request\" : 9 } \r",
        #"{"cmd":"invalidate","x":1e19,"y":-1.7976931348623157e308,"width":2.5E-3,"height":0.1e+2}"#,
        #"{"id":-9223372036854775808,"cmd":"tile","request":9223372036854775807,"drawn":true}"#,
        #"{"cmd":"invalidate","x":0.1000000000000000055511151231257827,"y":-0.0,"width":0e0,"height":123456789012345678901}"#,
        #"{}"#,
        #"{"id":0,"cmd":""}"#,
    ]

    /// Bytes a broken line is made with: every kind of JSON token's first byte, and worse.
    static let breakers: [UInt8] = Array(#"{}[]":,\ -+.0159eEtfnul"#.utf8) + [0x00, 0x09, 0x0A, 0x0D, 0x14, 0x7F, 0xC3, 0xFF]

    /// What decoding gives: the request, or the error's text.
    enum Outcome: Equatable {
        case request(ControlRequest)
        case refused(String)
    }

    static func outcome(_ decode: () throws(ControlError) -> ControlRequest) -> Outcome {
        do { return .request(try decode()) } catch { return .refused(error.description) }
    }

    static func agree(_ bytes: [UInt8], _ note: @autoclosure () -> String) {
        let quick = outcome { () throws(ControlError) in try ControlRequest.decode(bytes) }
        let reference = outcome { () throws(ControlError) in try ControlRequest.decodeWithFoundation(bytes) }
        #expect(quick == reference, "\(note()): \(String(decoding: bytes, as: UTF8.self).debugDescription)")
    }

    @Test func everyShapeDecodesAsJSONDecoderDecodesIt() {
        for line in Self.shapes { Self.agree(Array(line.utf8), "shape") }
    }

    @Test func theHotLinesAreReadWithoutJSONDecoder() throws {
        for line in Self.shapes.prefix(16) {
            let request = Array(line.utf8).withUnsafeBufferPointer { ControlRequestScanner.scan($0) }
            #expect(request != nil, "not taken: \(line)")
        }
        let invalidate = try #require(Array(Self.shapes[1].utf8).withUnsafeBufferPointer { ControlRequestScanner.scan($0) })
        #expect(invalidate == ControlRequest(id: 33, cmd: "invalidate", x: 0.5, y: -12.25, width: 1920, height: 48))
        let tile = try #require(Array(Self.shapes[3].utf8).withUnsafeBufferPointer { ControlRequestScanner.scan($0) })
        #expect(tile == ControlRequest(id: 31, cmd: "tile", request: 7, drawn: false))
    }

    @Test func shapesItDoesNotTakeGoToJSONDecoder() {
        let others = [
            #"{"cmd":"subscribe","events":["tap"]}"#, #"{"cmd":"tile","request":null}"#, #"{"cmd":"tile","request":7.0}"#,
            #"{"cmd":"tile","request":1e2}"#, #"{"cmd":"tile","request":-0}"#, #"{"cmd":"tile","request":0123}"#,
            #"{"cmd":"tile","request":9223372036854775808}"#, #"{"cmd":"tile","request":-9223372036854775809}"#,
            #"{"cmd":"invalidate","x":1e400}"#, #"{"cmd":"invalidate","x":5e-324}"#, #"{"cmd":"invalidate","x":1e-400}"#,
            #"{"cmd":"invalidate","x":1e}"#, #"{"cmd":"invalidate","x":1.5E+}"#, #"{"cmd":"invalidate","x":"1"}"#,
            #"{"cmd":"in\u0076alidate"}"#,
            #"{"cmd":"tile","cmd":"invalidate"}"#, #"{"cmd":"tile","extra":{}}"#, #"{"request":7}"#, #"{"cmd":"tile"} x"#,
            #"{"cmd":"tile",}"#, #"{"cmd":"tile""#, #"{"cmd":"t\#u{e9}le"}"#, #"["cmd"]"#, #"7"#, #""""#, "",
            #"{"cmd":"load","path":"a\"b"}"#, #"{"cmd":true}"#, #"{"cmd":"set-offset","x":.5,"y":1.}"#,
            // Foundation refuses "0e5" though JSON allows it, and takes "0e0": zeros with an
            // exponent are its to judge.
            #"{"cmd":"invalidate","x":0e5}"#, #"{"cmd":"invalidate","x":-0E5}"#, #"{"cmd":"invalidate","x":0.0e1}"#,
        ]
        for line in others {
            let bytes = Array(line.utf8)
            #expect(bytes.withUnsafeBufferPointer { ControlRequestScanner.scan($0) } == nil, "taken: \(line)")
            Self.agree(bytes, "not plain")
        }
    }

    /// Each shape broken at every byte: the byte replaced by, or preceded by, each breaker, or
    /// dropped; and cut short at every length.
    @Test func everyBrokenShapeIsRefusedAsJSONDecoderRefusesIt() {
        for line in Self.shapes.prefix(6) + Self.shapes.suffix(5) {
            let bytes = Array(line.utf8)
            for i in bytes.indices {
                var dropped = bytes
                dropped.remove(at: i)
                Self.agree(dropped, "byte \(i) dropped")
                Self.agree(Array(bytes[..<i]), "cut at \(i)")
                for b in Self.breakers {
                    var replaced = bytes, inserted = bytes
                    replaced[i] = b
                    inserted.insert(b, at: i)
                    Self.agree(replaced, "byte \(i) replaced")
                    Self.agree(inserted, "byte inserted at \(i)")
                }
            }
        }
    }

    @Test func stepLinesOfTheFuzzTargetsAreNotJSON() {
        for first in [UInt8](0x01..<0x20) where ![0x09, 0x0A, 0x0D].contains(first) {
            for rest in [[], [0x00], [0x7B, 0x7D], Array(#"{"cmd":"status"}"#.utf8)] as [[UInt8]] {
                Self.agree([first] + rest, "step line")
                #expect([first].withUnsafeBufferPointer { ControlRequestScanner.isSurelyNotJSON($0) })
            }
        }
        for first: UInt8 in [0x00, 0x09, 0x0A, 0x0D, 0x20, 0x7B] {
            #expect(![first].withUnsafeBufferPointer { ControlRequestScanner.isSurelyNotJSON($0) })
        }
    }

    /// The reply every `tile` and `invalidate` gets, and the requests and cancels a provider
    /// gets, are written by hand: byte for byte the encoder's.
    @Test func thePlainReplyIsTheEncodersLine() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        for id in [nil, 0, 1, 33, -7, Int.max, Int.min] as [Int?] {
            let reply = ControlMessage.reply(id: id)
            var expected = try encoder.encode(reply)
            expected.append(0x0A)
            #expect(reply.line() == expected, "id \(String(describing: id))")
        }
        // A provider's requests and cancels, with numbers written by hand and some left to the
        // encoder (fractions, −0, past 2⁵³).
        for (scale, x) in [(1.0, 512.0), (2, 0), (0.5, 1024), (1, 0.5), (1, -0.0), (1, 0x1p53), (0.25, 1e300), (1, -256)] {
            let tile = ControlTileRequest(level: 15, column: 2, row: 5, scale: scale, x: x, y: 1280, width: 256, height: 200.5,
                                          pixelWidth: 256, pixelHeight: 256, slot: 3, offset: 786432, stride: 1024)
            for message in [ControlMessage.tileRequest(id: 7, tile: tile), .tileCancel(id: Int(scale * 4))] {
                var expected = try encoder.encode(message)
                expected.append(0x0A)
                #expect(message.line() == expected, "\(String(decoding: expected, as: UTF8.self))")
            }
            var whole = ControlTileRequest(level: 1, column: 0, row: 0, scale: scale, x: x, y: 0, width: 1, height: 1,
                                           pixelWidth: 1, pixelHeight: 1, slot: 0, offset: 0, stride: 4)
            whole.height = 64
            let message = ControlMessage.tileRequest(id: Int.max, tile: whole)
            var expected = try encoder.encode(message)
            expected.append(0x0A)
            #expect(message.line() == expected, "\(String(decoding: expected, as: UTF8.self))")
        }
        #expect(ControlLineWriter.line(.tileRequest(id: 1, tile: ControlTileRequest(
            level: 1, column: 0, row: 0, scale: 1, x: 0, y: 0, width: 256, height: 256, pixelWidth: 256, pixelHeight: 256,
            slot: 0, offset: 0, stride: 1024))) != nil)
        // Not plain: the encoder writes them.
        var other = ControlMessage.reply(id: 4)
        other.zoomScale = 2
        #expect(String(decoding: other.line(), as: UTF8.self) == "{\"id\":4,\"ok\":true,\"zoomScale\":2}\n")
        #expect(String(decoding: ControlMessage.failure(id: 5, .failed("no")).line(), as: UTF8.self)
                == "{\"error\":\"no\",\"id\":5,\"ok\":false}\n")
    }
}
