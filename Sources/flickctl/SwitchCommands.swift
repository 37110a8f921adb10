// flickctl's on/off subcommands: UIScrollView's switches and the touch overlay.
import ArgumentParser
import FlickControl

/// A subcommand turning something on or off (`flickctl scroll-enabled off`,
/// `flickctl touch-overlay on`): the request `command` with `enabled`.
protocol OnOffCommand: ParsableCommand {
    static var command: String { get }
    var options: SocketOptions { get }
    var state: String { get }
}

extension OnOffCommand {
    func validate() throws {
        guard state == "on" || state == "off" else { throw ValidationError("Say on or off.") }
    }

    func run() throws { try options.run(ControlRequest(cmd: Self.command, enabled: state == "on")) }
}

extension FlickCtl {
    struct ScrollEnabled: OnOffCommand {
        static let command = ControlCommand.Switch.scrollEnabled.rawValue
        static let configuration = CommandConfiguration(
            commandName: command,
            abstract: "Let touches scroll (on) or not (off: a moving finger is the content's touch) (isScrollEnabled), until the next reload.")
        @OptionGroup var options: SocketOptions
        @Argument(help: "on or off.") var state: String
    }

    struct ScrollsToTop: OnOffCommand {
        static let command = ControlCommand.Switch.scrollsToTop.rawValue
        static let configuration = CommandConfiguration(
            commandName: command,
            abstract: "Let a tap in the scroll-to-top strip scroll to the top (on) or reach the content (off) (scrollsToTop), until the next reload.")
        @OptionGroup var options: SocketOptions
        @Argument(help: "on or off.") var state: String
    }

    struct DelaysContentTouches: OnOffCommand {
        static let command = ControlCommand.Switch.delaysContentTouches.rawValue
        static let configuration = CommandConfiguration(
            commandName: command,
            abstract: "Hold touches back from the content until they are known not to scroll (on) or send them at once (off) (delaysContentTouches), until the next reload.")
        @OptionGroup var options: SocketOptions
        @Argument(help: "on or off.") var state: String
    }

    struct CanCancelContentTouches: OnOffCommand {
        static let command = ControlCommand.Switch.canCancelContentTouches.rawValue
        static let configuration = CommandConfiguration(
            commandName: command,
            abstract: "Let a drag take a touch back from the content (on) or leave it the content's (off) (canCancelContentTouches), until the next reload.")
        @OptionGroup var options: SocketOptions
        @Argument(help: "on or off.") var state: String
    }
}
