// flickctl: steer a running flickd and hear what the user does, over its control socket.
import ArgumentParser
import FlickControl
import Foundation

struct SocketOptions: ParsableArguments {
    @Option(name: .long, help: "The control socket (default: $FLICKD_SOCKET or /run/flickd/control.sock).")
    var socket: String = ProcessInfo.processInfo.environment["FLICKD_SOCKET"] ?? "/run/flickd/control.sock"

    @Flag(name: .long, help: "Print the raw JSON reply.")
    var json = false

    /// Sends one request and prints its reply; a refusal is an error exit.
    func run(_ request: ControlRequest) throws {
        let reply = try ControlClient(path: socket).call(request)
        try show(reply)
    }

    func show(_ reply: ControlMessage) throws {
        if json || reply.status != nil {
            print(String(decoding: reply.line().dropLast(), as: UTF8.self))
        }
        if reply.ok == false { throw ValidationError(reply.error ?? "refused") }
    }
}

/// A subscription: which events, how many.
struct EventStream: ParsableArguments {
    @OptionGroup var options: SocketOptions
    @Option(help: "Only these event types, comma-separated (e.g. tap,didEndDecelerating,gesture).")
    var events: String?
    @Option(help: "Exit after this many events.")
    var count: Int?

    /// Subscribes and hands each event to `body` until the daemon closes or `count` is reached.
    func each(_ body: (ControlMessage) -> Void) throws {
        let client = try ControlClient(path: options.socket)
        let filter = events?.split(separator: ",").map { String($0) }
        let reply = try client.call(ControlRequest(cmd: "subscribe", events: filter))
        if reply.ok == false { throw ValidationError(reply.error ?? "refused") }
        var seen = 0
        while let message = try client.receive() {
            body(message)
            seen += 1
            if let count, seen >= count { return }
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
        subcommands: [Status.self, SetOffset.self, ScrollRectToVisible.self, SetZoom.self, ZoomToRect.self, Page.self,
                      ScrollToTop.self, Stop.self, FlashIndicators.self, Load.self, Subscribe.self, Monitor.self,
                      Snapshot.self, Reload.self]
    )

    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print offset, zoom, sizes, states, device and content as JSON.")
        @OptionGroup var options: SocketOptions
        func run() throws { try options.run(ControlRequest(cmd: "status")) }
    }

    struct SetOffset: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "set-offset", abstract: "Set the content offset (setContentOffset).")
        @OptionGroup var options: SocketOptions
        @OptionGroup var animation: Animation
        @Argument(help: "Offset x, px.") var x: Double
        @Argument(help: "Offset y, px.") var y: Double
        func run() throws { try options.run(ControlRequest(cmd: "set-offset", x: x, y: y, animated: !animation.noAnimate)) }
    }

    struct ScrollRectToVisible: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "scroll-rect-to-visible", abstract: "Scroll a rectangle into view (scrollRectToVisible).")
        @OptionGroup var options: SocketOptions
        @OptionGroup var animation: Animation
        @Argument var x: Double
        @Argument var y: Double
        @Argument var width: Double
        @Argument var height: Double
        func run() throws {
            try options.run(ControlRequest(cmd: "scroll-rect-to-visible", x: x, y: y, width: width, height: height, animated: !animation.noAnimate))
        }
    }

    struct SetZoom: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "set-zoom", abstract: "Set the zoom scale about the view's centre (setZoomScale).")
        @OptionGroup var options: SocketOptions
        @OptionGroup var animation: Animation
        @Argument var scale: Double
        func validate() throws {
            guard scale.isFinite, scale > 0 else { throw ValidationError("The scale must be a number greater than 0.") }
        }
        func run() throws { try options.run(ControlRequest(cmd: "set-zoom", scale: scale, animated: !animation.noAnimate)) }
    }

    struct ZoomToRect: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "zoom-to-rect", abstract: "Zoom to show a content rectangle (zoom(to:)).")
        @OptionGroup var options: SocketOptions
        @OptionGroup var animation: Animation
        @Argument var x: Double
        @Argument var y: Double
        @Argument var width: Double
        @Argument var height: Double
        func run() throws {
            try options.run(ControlRequest(cmd: "zoom-to-rect", x: x, y: y, width: width, height: height, animated: !animation.noAnimate))
        }
    }

    struct Page: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show page N (0-based) of paged content.")
        @OptionGroup var options: SocketOptions
        @OptionGroup var animation: Animation
        @Argument var number: Int
        func run() throws { try options.run(ControlRequest(cmd: "page", page: number, animated: !animation.noAnimate)) }
    }

    struct ScrollToTop: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "scroll-to-top", abstract: "Scroll to the top (scrollToTop).")
        @OptionGroup var options: SocketOptions
        func run() throws { try options.run(ControlRequest(cmd: "scroll-to-top")) }
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

    struct Load: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show other content: a PNG/JPEG file or a folder of them, inside the config's content.load_directories.")
        @OptionGroup var options: SocketOptions
        @Argument(help: "The content's absolute path, as the daemon sees it.") var path: String
        func run() throws { try options.run(ControlRequest(cmd: "load", path: path)) }
    }

    struct Subscribe: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print events as JSON lines until interrupted.")
        @OptionGroup var stream: EventStream
        func run() throws {
            try stream.each { message in
                // Unbuffered, so a pipe sees each event as it happens.
                FileHandle.standardOutput.write(message.line())
            }
        }
    }

    struct Monitor: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print events as readable lines until interrupted.")
        @OptionGroup var stream: EventStream
        func run() throws {
            try stream.each { message in
                FileHandle.standardOutput.write(Data((EventLine.text(message) + "\n").utf8))
            }
        }
    }

    struct Snapshot: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Have the daemon write the current frame as a PNG.")
        @OptionGroup var options: SocketOptions
        @Argument(help: "Where the daemon writes the PNG.") var path: String
        func run() throws { try options.run(ControlRequest(cmd: "snapshot", path: path)) }
    }

    struct Reload: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Re-read the config file; a bad one is rejected and the old one stays.")
        @OptionGroup var options: SocketOptions
        func run() throws { try options.run(ControlRequest(cmd: "reload")) }
    }
}
