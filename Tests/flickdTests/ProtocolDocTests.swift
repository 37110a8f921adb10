import FlickControl
import FlickCore
import Foundation
import Testing

/// docs/protocol.md cannot drift from the code: every JSON example in it parses with the real
/// decoders and re-encodes to the same object, every error example is the reply the parser
/// gives, and every command and event the code has is shown there.
@Suite struct ProtocolDocTests {
    static let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/protocol.md").path

    /// One fenced example: its kind (`request`, `reply`, `event`, `request-error`), its line in
    /// the document, its text.
    struct Example {
        var kind: String
        var line: Int
        var text: String
    }

    static func examples() throws -> [Example] {
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        var found: [Example] = []
        var open: Example?
        for (i, line) in lines.enumerated() {
            if var example = open {
                if line.hasPrefix("```") {
                    found.append(example)
                    open = nil
                } else {
                    example.text += line + "\n"
                    open = example
                }
            } else if line.hasPrefix("```json") {
                let kind = line.dropFirst("```json".count).trimmingCharacters(in: .whitespaces)
                open = Example(kind: kind, line: i + 1, text: "")
            }
        }
        #expect(open == nil, "an example block is not closed")
        return found
    }

    static func object(_ text: String) throws -> NSDictionary {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? NSDictionary)
    }

    /// `message` re-encoded as the daemon sends it.
    static func encoded(_ message: ControlMessage) throws -> NSDictionary { try object(String(decoding: message.line(), as: UTF8.self)) }

    @Test func everyExampleParsesWithTheRealDecoders() throws {
        let examples = try Self.examples()
        #expect(examples.count > 40)
        var i = 0
        while i < examples.count {
            let example = examples[i]
            let at = "docs/protocol.md:\(example.line)"
            let json = try Self.object(example.text)
            let data = Data(example.text.utf8)
            switch example.kind {
            case "request":
                let request = try ControlRequest.decode(data)
                _ = try ControlCommand(request)
                #expect(try Self.object(String(decoding: request.line(), as: UTF8.self)) == json, "\(at): not the request it decodes to")
            case "request-error":
                // The parser refuses it, and the next example is exactly the reply it sends.
                let expected: ControlMessage
                do {
                    let request = try ControlRequest.decode(data)
                    do {
                        _ = try ControlCommand(request)
                        Issue.record("\(at): the parser accepts it")
                        expected = ControlMessage()
                    } catch {
                        expected = .failure(id: request.id, error)
                    }
                } catch {
                    expected = .failure(id: nil, error)
                }
                i += 1
                let reply = try #require(examples.indices.contains(i) ? examples[i] : nil, "\(at): no reply after it")
                #expect(reply.kind == "reply", "\(at): a request-error must be followed by its reply")
                #expect(try Self.object(reply.text) == (try Self.encoded(expected)),
                        "docs/protocol.md:\(reply.line): the daemon replies \(String(decoding: expected.line(), as: UTF8.self))")
            case "reply":
                let message = try JSONDecoder().decode(ControlMessage.self, from: data)
                #expect(message.ok != nil, "\(at): a reply has ok")
                #expect(message.type == nil && message.t == nil, "\(at): a reply is no event")
                #expect(try Self.encoded(message) == json, "\(at): a field the decoder does not know, or of the wrong type")
            case "event":
                let message = try JSONDecoder().decode(ControlMessage.self, from: data)
                let own = message.type.map(ControlMessage.providerEventTypes.contains) ?? false
                #expect(message.type != nil && (message.t != nil || own), "\(at): an event has type and t")
                #expect(message.ok == nil && message.id == nil, "\(at): an event is no reply")
                if message.type != "frame" && !own { #expect(message.scrollState != nil, "\(at): an event carries the state") }
                #expect(try Self.encoded(message) == json, "\(at): a field the decoder does not know, or of the wrong type")
            default:
                Issue.record("\(at): unknown example kind '\(example.kind)' (request, request-error, reply, event)")
            }
            i += 1
        }
    }

    @Test func everyCommandHasAnExample() throws {
        let commands = Set(try Self.examples().filter { $0.kind == "request" }.compactMap { try Self.object($0.text)["cmd"] as? String })
        #expect(Set(ControlCommand.names).subtracting(commands).isEmpty, "no example of \(Set(ControlCommand.names).subtracting(commands))")
        let text = try String(contentsOfFile: Self.path, encoding: .utf8)
        for name in ControlCommand.names { #expect(text.contains("| `\(name)` |"), "\(name) is not in the table of commands") }
    }

    // The samples: one of each case. The exhaustive switches make a new case a compile error
    // here, so whoever adds one adds its sample, and then must document it.
    static let p = Point(x: 3, y: 4)
    static let scrollSamples: [ScrollEvent] = [
        .didScroll, .willBeginDragging, .willEndDragging(velocity: Vector(dx: 1, dy: 2), targetContentOffset: p),
        .didEndDragging(willDecelerate: true), .willBeginDecelerating, .didEndDecelerating, .willBeginZooming, .didZoom,
        .didEndZooming(atScale: 2), .didEndScrollingAnimation, .didScrollToTop,
    ]
    static func index(_ e: ScrollEvent) -> Int {
        switch e {
        case .didScroll: 0
        case .willBeginDragging: 1
        case .willEndDragging: 2
        case .didEndDragging: 3
        case .willBeginDecelerating: 4
        case .didEndDecelerating: 5
        case .willBeginZooming: 6
        case .didZoom: 7
        case .didEndZooming: 8
        case .didEndScrollingAnimation: 9
        case .didScrollToTop: 10
        }
    }
    static let contentSamples: [ContentTouch] = [.down(p), .up(p), .cancel, .tap(p), .doubleTap(p), .longPress(p), .move(p)]
    static func index(_ c: ContentTouch) -> Int {
        switch c {
        case .down: 0
        case .up: 1
        case .cancel: 2
        case .tap: 3
        case .doubleTap: 4
        case .longPress: 5
        case .move: 6
        }
    }
    static let gestureSamples: [Gesture] = [
        .tap(p), .doubleTap(p, zoomedTo: 2), .longPress(p), .drag(translation: Vector(dx: 1, dy: 2)),
        .flick(velocity: Vector(dx: 1, dy: 2), restOffset: p, duration: 1), .pinch(fromScale: 1, toScale: 2), .stop(at: p),
        .cancelled, .bounce(edge: .top, distance: 3), .pageChange(from: 0, to: 1), .scrollToTop,
        .link(at: p, DocumentLinks.Area(page: 0, rect: Rect(x: 0, y: 0, width: 9, height: 9), target: .page(2, x: nil, y: 10), destination: p)),
    ]
    /// The other targets of a link, each its own fields.
    static let linkSamples: [Gesture] = [
        .link(at: p, DocumentLinks.Area(page: 1, rect: Rect(x: 0, y: 0, width: 9, height: 9), target: .uri("https://example.com"), destination: nil)),
        .link(at: p, DocumentLinks.Area(page: 1, rect: Rect(x: 0, y: 0, width: 9, height: 9), target: .file("wine.pdf", page: 2), destination: nil)),
        .link(at: p, DocumentLinks.Area(page: 1, rect: Rect(x: 0, y: 0, width: 9, height: 9), target: .missing("page 9 of menu.pdf does not exist"), destination: nil)),
    ]
    static func index(_ g: Gesture) -> Int {
        switch g {
        case .tap: 0
        case .doubleTap: 1
        case .longPress: 2
        case .drag: 3
        case .flick: 4
        case .pinch: 5
        case .stop: 6
        case .cancelled: 7
        case .bounce: 8
        case .pageChange: 9
        case .scrollToTop: 10
        case .link: 11
        }
    }
    static func index(_ kind: GestureOutput.Kind) -> Int {
        switch kind {
        case .content: 0
        case .scroll: 1
        case .state: 2
        case .gesture: 3
        case .transition: 4
        case .diagnostic: 5
        }
    }

    @Test func everyEventTheCodeSendsHasAnExampleWithItsFields() throws {
        #expect(Set(Self.scrollSamples.map(Self.index)) == Set(0..<Self.scrollSamples.count))
        #expect(Set(Self.contentSamples.map(Self.index)) == Set(0..<Self.contentSamples.count))
        #expect(Set(Self.gestureSamples.map(Self.index)) == Set(0..<Self.gestureSamples.count))
        let view = try ScrollView(boundsSize: Size(width: 800, height: 480), contentSize: Size(width: 3200, height: 1920))
        var kinds: [GestureOutput.Kind] = Self.scrollSamples.map { .scroll($0) } + Self.contentSamples.map { .content($0) }
            + Self.gestureSamples.map { .gesture($0) } + [.state(view.state), .diagnostic("why")]
        for invalid in [false, true] {
            kinds.append(.transition(Transition(.scroll, at: .zero, from: "idle", on: "touchDown", to: "tracking", invalid: invalid)))
        }
        #expect(Set(kinds.map(Self.index)) == Set(0..<6))
        let documented = try Self.examples().filter { $0.kind == "event" }.map { try Self.object($0.text) }
        var messages = kinds.map { ControlMessage.event(GestureOutput(time: .zero, kind: $0, state: view.state), view: view) }
        messages += Self.linkSamples.map { ControlMessage.event(GestureOutput(time: .zero, kind: .gesture($0), state: view.state), view: view) }
        messages.append(.frame(at: 0, offset: .zero, zoomScale: 1))
        messages.append(.tileRequest(id: 7, tile: ControlTileRequest(level: 15, column: 2, row: 5, scale: 1, x: 512, y: 1280,
                                                                     width: 256, height: 256, pixelWidth: 256, pixelHeight: 256,
                                                                     slot: 3, offset: 786_432, stride: 1024)))
        messages.append(.tileCancel(id: 8))
        for message in messages {
            let fields = Set(try Self.encoded(message).allKeys.compactMap { $0 as? String })
            // An event with several shapes (a link's targets) has an example of each.
            let candidates = documented.filter { $0["type"] as? String == message.type && $0["gesture"] as? String == message.gesture }
            let example = candidates.first { fields.isSubset(of: Set($0.allKeys.compactMap { $0 as? String })) } ?? candidates.first
            let name = message.type! + (message.gesture.map { ":" + $0 } ?? "")
            guard let example else {
                Issue.record("docs/protocol.md has no example of \(name)")
                continue
            }
            let shown = Set(example.allKeys.compactMap { $0 as? String })
            #expect(fields.isSubset(of: shown), "the example of \(name) lacks \(fields.subtracting(shown))")
        }
    }

    @Test func theVersionIsTheOneTheCodeReports() throws {
        let text = try String(contentsOfFile: Self.path, encoding: .utf8)
        #expect(text.contains("Protocol version: **\(controlProtocolVersion)**"))
        let status = try #require(try Self.examples().first { $0.text.contains("\"status\": {") })
        let message = try JSONDecoder().decode(ControlMessage.self, from: Data(status.text.utf8))
        #expect(message.status?.protocolVersion == controlProtocolVersion && message.status?.version == flickVersion)
    }
}
