@testable import FlickCore

/// A gesture script over the recogniser on a virtual clock: fingers go `down`, `move` and `up`,
/// `send()` emits one frame (one SYN_REPORT) with the changes, `wait` lets time pass with
/// timers fired and animations stepped at 60 Hz, as the daemon's loop would.
struct GestureHarness {
    var recognizer: GestureRecognizer
    var now: Instant = .seconds(100)
    var outputs: [GestureOutput] = []
    /// Every diagnostic the recogniser returned (kept apart: `take()` does not drain them).
    var diagnostics: [String] = []
    private var contacts: [ContactID: Contact] = [:]
    private var began: [ContactID] = []
    private var ended: [Contact] = []
    private var cancelled: [ContactID] = []

    init(bounds: Size = Size(width: 800, height: 480), content: Size = Size(width: 800, height: 6000),
         configure: (inout GestureConfiguration) -> Void = { _ in },
         scroll: (inout ScrollView) throws -> Void = { _ in }) {
        var view = try! ScrollView(boundsSize: bounds, contentSize: content)
        try! scroll(&view)
        var configuration = GestureConfiguration()
        configuration.pixelsPerMillimetre = 4
        configure(&configuration)
        recognizer = GestureRecognizer(scrollView: view, configuration: configuration)
    }

    var view: ScrollView { recognizer.scrollView }

    mutating func down(_ id: Int, _ x: Double, _ y: Double, tool: ToolType = .finger) {
        let c = Contact(id: ContactID(id), position: Point(x: x, y: y), tool: tool)
        contacts[c.id] = c
        began.append(c.id)
    }

    mutating func move(_ id: Int, _ x: Double, _ y: Double) {
        contacts[ContactID(id)]?.position = Point(x: x, y: y)
    }

    mutating func up(_ id: Int, cancelled isCancelled: Bool = false) {
        guard let c = contacts.removeValue(forKey: ContactID(id)) else { return }
        ended.append(c)
        if isCancelled { cancelled.append(c.id) }
    }

    /// Ends every contact as cancelled, as a removed device does.
    mutating func removeDevice() {
        for id in contacts.keys.sorted() { up(id.rawValue, cancelled: true) }
        send()
    }

    /// Emits the pending changes as one frame at the current time.
    mutating func send() {
        let frame = TouchFrame(time: now, contacts: contacts.values.sorted { $0.id < $1.id },
                               began: began, ended: ended, cancelled: cancelled)
        began = []; ended = []; cancelled = []
        keep(recognizer.handle(frame))
    }

    private mutating func keep(_ new: [GestureOutput]) {
        for output in new { if case let .diagnostic(d) = output.kind { diagnostics.append(d) } }
        outputs += new
    }

    /// Lets `ms` pass: timers fire at their deadlines, animations step at 60 Hz vblanks.
    mutating func wait(ms: Double) {
        let end = now + .seconds(double: ms / 1000)
        while now < end {
            let vblank = Swift.min(now + .seconds(double: 1.0 / 60), end)
            keep(recognizer.fireTimers(upTo: vblank))
            now = vblank
            if recognizer.scrollView.isAnimating { keep(recognizer.advance(to: now)) }
        }
    }

    /// Runs until the scroll view is at rest and no timer is armed.
    mutating func settle(maxSeconds: Double = 30) {
        var spent = 0.0
        while (recognizer.scrollView.isAnimating || recognizer.nextDeadline != nil) && spent < maxSeconds {
            wait(ms: 100); spent += 0.1
        }
    }

    mutating func advance(ms: Double) {
        now = now + .seconds(double: ms / 1000)
    }

    /// Takes the outputs so far.
    mutating func take() -> [GestureOutput] {
        defer { outputs = [] }
        return outputs
    }

    // MARK: Views of the outputs

    static func content(_ o: [GestureOutput]) -> [ContentTouch] {
        o.compactMap { if case let .content(c) = $0.kind { c } else { nil } }
    }

    static func scroll(_ o: [GestureOutput]) -> [ScrollEvent] {
        o.compactMap { if case let .scroll(s) = $0.kind { s } else { nil } }
    }

    static func gestures(_ o: [GestureOutput]) -> [Gesture] {
        o.compactMap { if case let .gesture(g) = $0.kind { g } else { nil } }
    }

    static func taps(_ o: [GestureOutput]) -> Int {
        content(o).filter { if case .tap = $0 { true } else { false } }.count
    }
}
