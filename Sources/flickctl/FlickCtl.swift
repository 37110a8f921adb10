// flickctl: steer a running flickd and hear what the user does, over its control socket.
import ArgumentParser
import FlickControl
import FlickCore
import FlickSystem
import FoundationEssentials
import Glibc

struct SocketOptions: ParsableArguments {
    @Option(name: .customLong("socket"), help: "The control socket (default: $FLICKD_SOCKET, else /run/flickd/control.sock).")
    var socketOption: String?

    /// The socket to talk to.
    var socket: String { socketOption ?? ProcessInfo.processInfo.environment["FLICKD_SOCKET"] ?? "/run/flickd/control.sock" }

    @Flag(name: .long, help: "Print the raw JSON reply.")
    var json = false

    @Option(name: .customLong("wait"), help: ArgumentHelp(
        "Wait up to this many seconds for the socket to appear and accept (a daemon starting), then run the command.",
        valueName: "seconds"))
    var waitSeconds: Double?

    func validate() throws {
        if let waitSeconds, !(waitSeconds.isFinite && waitSeconds >= 0 && waitSeconds <= 86_400) {
            throw ValidationError("--wait takes seconds from 0 to 86400, not \(waitSeconds.brief)")
        }
    }

    /// A connection to the socket, waited for when `--wait` says so.
    func connect() throws -> ControlClient { try SocketWait.connect(socket, within: waitSeconds) }

    /// Sends one request and prints its reply; a refusal is an error exit.
    func run(_ request: ControlRequest) throws {
        try show(try call(request))
    }

    /// Sends one request and returns the reply; the daemon not answering is an error exit.
    func call(_ request: ControlRequest) throws -> ControlMessage {
        do {
            return try connect().call(request)
        } catch {
            throw failure(error)
        }
    }

    func show(_ reply: ControlMessage) throws {
        if json || reply.status != nil {
            print(String(decoding: reply.line().dropLast(), as: UTF8.self))
        }
        if reply.ok == false { throw failure(ControlError.failed(reply.error ?? "refused")) }
    }

    /// Sends a command that moves the view; says so when the daemon applied something other
    /// than what was asked (a zoom clamped to its limits, an offset clamped into the bounds).
    func move(_ request: ControlRequest, asked offset: [Double]? = nil, scale: Double? = nil) throws {
        let reply = try call(request)
        try show(reply)
        guard !json, let applied = reply.offset, applied.count == 2, let zoom = reply.zoomScale else { return }
        let offsetDiffers = offset.map { zip($0, applied).contains { abs($0 - $1) > 1e-6 } } ?? false
        let scaleDiffers = scale.map { abs($0 - zoom) > 1e-9 } ?? false
        if offsetDiffers || scaleDiffers {
            print("applied: offset (\(applied[0].brief), \(applied[1].brief)), zoom \(zoom.brief)")
        }
    }
}

/// An error said alone on standard error, and the exit status of its kind (sysexits.h): the
/// daemon refusing a request is 65, no daemon on the socket 69, a broken connection 74.
func failure(_ error: any Error) -> ExitCode {
    write(Array("flickctl: \(error)\n".utf8), to: STDERR_FILENO)
    return ExitCode((error as? any FlickError)?.kind.rawValue ?? ErrorKind.software.rawValue)
}

/// Numbers on the command line. Negative numbers are values, not options, so
/// `flickctl set-offset -100 0` needs no `--`; NaN and infinities are refused here, since JSON
/// cannot carry them.
struct Numbers: ParsableArguments {
    @Argument(parsing: .allUnrecognized, help: ArgumentHelp("The numbers, in the order shown.", valueName: "number"))
    var values: [String] = []

    /// The values as finite numbers, one per name.
    /// - Throws: `ValidationError` naming the missing, extra or bad value.
    func read(_ names: [String]) throws -> [Double] {
        // A `--` before the numbers, as older scripts wrote it, is still understood.
        let values = values.filter { $0 != "--" }
        guard values.count == names.count else {
            let expected = names.map { "<\($0)>" }.joined(separator: " ")
            let count = "\(names.count) number\(names.count == 1 ? "" : "s")"
            guard !values.isEmpty else { throw ValidationError("missing \(expected): expected \(count)") }
            throw ValidationError("expected \(count) (\(expected)), got \(values.count): \(values.joined(separator: " "))")
        }
        return try zip(names, values).map { name, text in
            guard let value = Double(text) else { throw ValidationError("<\(name)>: '\(text)' is not a number") }
            guard value.isFinite else { throw ValidationError("<\(name)>: '\(text)' is not a finite number") }
            return value
        }
    }
}

/// The four numbers of a rectangle, for `scroll-rect-to-visible` and `zoom-to-rect`.
struct RectArguments: ParsableArguments {
    @OptionGroup var options: SocketOptions
    @OptionGroup var animation: Animation
    @OptionGroup var numbers: Numbers

    /// The rectangle asked for.
    /// - Throws: `ValidationError` for a missing, extra or bad number, or a negative size.
    func rect() throws -> [Double] {
        let n = try numbers.read(["x", "y", "width", "height"])
        guard n[2] >= 0, n[3] >= 0 else { throw ValidationError("the width and height must be at least 0") }
        return n
    }

    // Checked while parsing, not in `run`: only an error thrown then prints the subcommand's
    // usage; one thrown from `run` prints flickctl's.
    func validate() throws { _ = try rect() }

    /// Sends `cmd` with the rectangle.
    func send(_ cmd: String) throws {
        let n = try rect()
        try options.move(ControlRequest(cmd: cmd, x: n[0], y: n[1], width: n[2], height: n[3], animated: !animation.noAnimate))
    }
}

/// A subscription: which events, how many.
struct EventStream: ParsableArguments {
    @OptionGroup var options: SocketOptions
    @Option(help: "Only these event types, comma-separated (e.g. tap,didEndDecelerating,gesture).")
    var events: String?
    @Option(help: "Exit after this many events.")
    var count: Int?

    func validate() throws {
        if let count, count < 1 { throw ValidationError("--count takes a number of events of at least 1, not \(count)") }
    }

    /// Subscribes and hands each event to `body` until the daemon closes or `count` is reached.
    func each(_ body: (ControlMessage) -> Void) throws {
        do {
            let client = try options.connect()
            let filter = events?.split(separator: ",").map { String($0) }
            let reply = try client.call(ControlRequest(cmd: "subscribe", events: filter))
            if reply.ok == false { throw ControlError.failed(reply.error ?? "refused") }
            var seen = 0
            while let message = try client.receive() {
                body(message)
                seen += 1
                if let count, seen >= count { return }
            }
        } catch {
            throw failure(error)
        }
    }
}

struct Animation: ParsableArguments {
    @Flag(name: .customLong("no-animate"), help: "Jump instead of animating.")
    var noAnimate = false
}

@main
struct FlickCtl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flickctl",
        abstract: "Steer a running flickd and receive its scroll and touch events.",
        version: flickVersion,
        subcommands: [Status.self, SetOffset.self, ScrollRectToVisible.self, SetZoom.self, ZoomToRect.self, Page.self,
                      ScrollToTop.self, Stop.self, FlashIndicators.self, Load.self, Subscribe.self, Monitor.self,
                      Snapshot.self, Reload.self, TouchOverlay.self, ScrollEnabled.self, ScrollsToTop.self,
                      DelaysContentTouches.self, CanCancelContentTouches.self, Claim.self, Provider.self, Display.self]
    )

    struct Provider: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the content provider: connected, tiles pending and drawn, mean tile latency.")
        @OptionGroup var options: SocketOptions
        func run() throws {
            let reply = try options.call(ControlRequest(cmd: "status"))
            if options.json { return try options.show(reply) }
            if reply.ok == false { try options.show(reply) }
            guard let p = reply.status?.provider else {
                print("no content provider connected (content: \(reply.status?.content ?? "?"))")
                return
            }
            let latency = p.latencyMs.map { "\($0.brief) ms" } ?? "no answer yet"
            print("content provider \(p.name): connected, \(p.pending ?? 0) tiles pending, \(p.drawn ?? 0) drawn, "
                  + "mean latency \(latency), \(p.timeouts ?? 0) timed out, \(p.cancelled ?? 0) cancelled, "
                  + "\(p.invalidations ?? 0) invalidations")
            if let over = p.tilesOverwritten, let kept = p.tilesIntoKeptBuffers, let new = p.tilesIntoNewBuffers {
                print("answered tiles copied over their old pixels \(over), into kept buffers \(kept), into new buffers \(new)")
            }
            if let deferred = p.redrawsDeferred {
                print("changed tiles that waited their turn (content.provider_redraw_hz) \(deferred), waiting now \(p.redrawsWaiting ?? 0)")
            }
        }
    }

    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print offset, zoom, sizes, states, device and content as JSON.")
        @OptionGroup var options: SocketOptions
        func run() throws { try options.run(ControlRequest(cmd: "status")) }
    }

    struct SetOffset: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set-offset", abstract: "Set the content offset (setContentOffset): <x> <y> in px, negative allowed.")
        @OptionGroup var options: SocketOptions
        @OptionGroup var animation: Animation
        @OptionGroup var numbers: Numbers
        func offset() throws -> [Double] { try numbers.read(["x", "y"]) }
        // While parsing, not in `run`, so that a wrong number prints this subcommand's usage.
        func validate() throws { _ = try offset() }
        func run() throws {
            let n = try offset()
            try options.move(ControlRequest(cmd: "set-offset", x: n[0], y: n[1], animated: !animation.noAnimate), asked: n)
        }
    }

    struct ScrollRectToVisible: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "scroll-rect-to-visible",
            abstract: "Scroll a rectangle into view (scrollRectToVisible): <x> <y> <width> <height>, scaled content px.")
        @OptionGroup var rect: RectArguments
        func run() throws { try rect.send("scroll-rect-to-visible") }
    }

    struct SetZoom: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set-zoom", abstract: "Set the zoom scale about the view's centre (setZoomScale): <scale>.")
        @OptionGroup var options: SocketOptions
        @OptionGroup var animation: Animation
        @OptionGroup var numbers: Numbers
        func scale() throws -> Double {
            let scale = try numbers.read(["scale"])[0]
            guard scale > 0 else { throw ValidationError("<scale>: the scale must be greater than 0") }
            return scale
        }
        // While parsing, not in `run`, so that a wrong number prints this subcommand's usage.
        func validate() throws { _ = try scale() }
        func run() throws {
            let scale = try scale()
            try options.move(ControlRequest(cmd: "set-zoom", scale: scale, animated: !animation.noAnimate), scale: scale)
        }
    }

    struct ZoomToRect: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "zoom-to-rect", abstract: "Zoom to show a content rectangle (zoom(to:)): <x> <y> <width> <height>, content px.")
        @OptionGroup var rect: RectArguments
        func run() throws { try rect.send("zoom-to-rect") }
    }

    struct Page: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show page N of paged content, counted from 0 (the first page is 0).")
        @OptionGroup var options: SocketOptions
        @OptionGroup var animation: Animation
        // Taken as text, so that `page -1` reaches `validate` and is told why, rather than being
        // an unknown option.
        @Argument(parsing: .allUnrecognized, help: ArgumentHelp("The page, counted from 0.", valueName: "number"))
        var values: [String] = []

        /// The page asked for.
        /// - Throws: `ValidationError` for no number, several, one that is not whole, or a negative one.
        func number() throws -> Int {
            let values = values.filter { $0 != "--" }
            guard !values.isEmpty else { throw ValidationError("missing <number>: the page, counted from 0 (the first page is 0)") }
            guard values.count == 1 else {
                throw ValidationError("expected one page number (<number>), got \(values.count): \(values.joined(separator: " "))")
            }
            guard let n = Int(values[0]) else { throw ValidationError("<number>: '\(values[0])' is not a whole number") }
            guard n >= 0 else { throw ValidationError("<number>: pages are counted from 0 (the first page is 0), so \(n) is none") }
            return n
        }

        func validate() throws { _ = try number() }

        func run() throws { try options.move(ControlRequest(cmd: "page", page: try number(), animated: !animation.noAnimate)) }
    }

    struct ScrollToTop: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "scroll-to-top", abstract: "Scroll to the top (scrollToTop).")
        @OptionGroup var options: SocketOptions
        @OptionGroup var animation: Animation
        func run() throws { try options.move(ControlRequest(cmd: "scroll-to-top", animated: !animation.noAnimate)) }
    }

    struct Stop: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Stop scrolling and zooming where they are.")
        @OptionGroup var options: SocketOptions
        func run() throws { try options.run(ControlRequest(cmd: "stop")) }
    }

    struct FlashIndicators: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "flash-indicators", abstract: "Flash the scroll indicators.")
        @OptionGroup var options: SocketOptions
        func run() throws { try options.run(ControlRequest(cmd: "flash-indicators")) }
    }

    struct TouchOverlay: OnOffCommand {
        static let command = "touch-overlay"
        static let configuration = CommandConfiguration(
            commandName: command,
            abstract: "Show (on) or hide (off) dots and trails under the fingers, until the next reload.")
        @OptionGroup var options: SocketOptions
        @Argument(help: "on or off.") var state: String
    }

    struct Display: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Turn the panel on, off or dim now ([power]; the timers and hours go on from there), or print its power state.")
        @OptionGroup var options: SocketOptions
        @Argument(help: "on, off, dim or status.") var state: String
        func validate() throws {
            guard ["on", "off", "dim", "status"].contains(state) else {
                throw ValidationError("display takes on, off, dim or status, not '\(state)'")
            }
        }
        func run() throws {
            guard state == "status" else { return try options.run(ControlRequest(cmd: "display", state: state)) }
            let reply = try options.call(ControlRequest(cmd: "status"))
            if options.json || reply.ok == false { return try options.show(reply) }
            let note = reply.status?.powerNote.map { "; \($0)" } ?? ""
            let reason = reply.status?.powerReason.map { " (\($0))" } ?? ""
            print("display " + (reply.status?.power ?? "on (display power is off in the config)") + reason + note)
        }
    }

    struct Load: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show other content, inside the config's content.load_directories: a PNG, JPEG or WebP image of any size, "
                + "a PDF, an SVG, a Deep Zoom .dzi, or a folder of pages (images, PDFs, SVGs).")
        @OptionGroup var options: SocketOptions
        @Argument(help: "The content's path; a relative one is taken from the current folder.") var path: String
        func run() throws { try options.run(ControlRequest(cmd: "load", path: Self.absolute(path))) }

        /// `path` from the current folder: the daemon runs in another one, and cannot know ours.
        static func absolute(_ path: String) -> String {
            guard !path.hasPrefix("/"), let cwd = getcwd(nil, 0) else { return path }
            defer { free(cwd) }
            let folder = String(cString: cwd)
            return (folder.hasSuffix("/") ? folder : folder + "/") + path
        }
    }

    struct Subscribe: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print events as JSON lines until interrupted.")
        @OptionGroup var stream: EventStream
        func run() throws {
            try stream.each { message in
                // Unbuffered, so a pipe sees each event as it happens.
                write(Array(message.line()), to: STDOUT_FILENO)
            }
        }
    }

    struct Monitor: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print events as readable lines until interrupted.")
        @OptionGroup var stream: EventStream
        func run() throws {
            try stream.each { message in
                write(Array((EventLine.text(message) + "\n").utf8), to: STDOUT_FILENO)
            }
        }
    }

    struct Snapshot: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write the frame on screen as a PNG file: flickctl opens FILE and the daemon writes into it.")
        @OptionGroup var options: SocketOptions
        @Argument(help: "The PNG file to write (created or replaced, with your permissions).") var file: String
        func run() throws {
            // The daemon writes into a new file beside FILE, which replaces FILE only once the
            // frame is in it: a refusal or a missing daemon leaves FILE as it was.
            var template = Array((file + ".XXXXXX").utf8CString)
            let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
            guard fd >= 0 else { throw failure(LocalFileError(path: file, reason: "cannot create", cause: .current("open", file))) }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
            // mkstemp makes 0600; a snapshot is an ordinary file of its user's (0666 less the umask).
            let mask = umask(0)
            umask(mask)
            fchmod(fd, 0o666 & ~mask)
            var kept = false
            defer {
                close(fd)
                if !kept { unlink(temporary) }
            }
            let reply: ControlMessage
            do {
                reply = try options.connect().call(ControlRequest(cmd: "snapshot"), passing: fd)
            } catch {
                throw failure(error)
            }
            if reply.ok == true {
                guard rename(temporary, file) == 0 else {
                    throw failure(LocalFileError(path: file, reason: "cannot replace", cause: .current("rename", file)))
                }
                kept = true
            }
            try options.show(reply)
        }
    }

    /// A file of flickctl's own that it cannot write (EX_IOERR).
    struct LocalFileError: FlickError {
        var path: String
        var reason: String
        var cause: SystemError
        var context: ErrorContext { ErrorContext(source: path, reason: "\(reason): \(cause.message)") }
        var kind: ErrorKind { .io }
    }

    struct Reload: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Re-read the config file and print the keys it changed; a bad one is rejected and the old one stays.")
        @OptionGroup var options: SocketOptions
        func run() throws {
            let reply = try options.call(ControlRequest(cmd: "reload"))
            try options.show(reply)
            guard !options.json else { return }
            let changes = reply.changes ?? []
            print("reloaded " + (reply.config ?? "the built-in defaults (no config file)") + ": "
                  + (changes.isEmpty ? "no key changed" : "\(changes.count) key\(changes.count == 1 ? "" : "s") changed"))
            for change in changes { print("  " + change) }
        }
    }
}

/// Writes all of `bytes` to `fd` (standard output or error), retrying short writes: flickctl
/// needs no FileHandle, so it links FoundationEssentials only, not Foundation and its ICU data.
func write(_ bytes: [UInt8], to fd: Int32) {
    // Nowhere to report a failed write to standard output or error.
    try? writeWhole(bytes, to: fd, context: "fd \(fd)")
}

