// flickctl's switches: UIScrollView's on/off properties, each its own subcommand.
import ArgumentParser
import FlickControl

/// A subcommand turning one of UIScrollView's switches on or off (`flickctl scroll-enabled off`).
protocol SwitchCommand: ParsableCommand {
    static var which: ControlCommand.Switch { get }
    var options: SocketOptions { get }
    var state: String { get }
}

extension SwitchCommand {
    func validate() throws {
        guard state == "on" || state == "off" else { throw ValidationError("Say on or off.") }
    }

    func run() throws { try options.run(ControlRequest(cmd: Self.which.rawValue, enabled: state == "on")) }
}

extension FlickCtl {
    struct ScrollEnabled: SwitchCommand {
        static let which = ControlCommand.Switch.scrollEnabled
        static let configuration = CommandConfiguration(
            commandName: which.rawValue,
            abstract: "Let touches scroll (on) or not (off: a moving finger is the content's touch) (isScrollEnabled), until the next reload.")
        @OptionGroup var options: SocketOptions
        @Argument(help: "on or off.") var state: String
    }

    struct ScrollsToTop: SwitchCommand {
        static let which = ControlCommand.Switch.scrollsToTop
        static let configuration = CommandConfiguration(
            commandName: which.rawValue,
            abstract: "Let a tap in the scroll-to-top strip scroll to the top (on) or reach the content (off) (scrollsToTop), until the next reload.")
        @OptionGroup var options: SocketOptions
        @Argument(help: "on or off.") var state: String
    }

    struct DelaysContentTouches: SwitchCommand {
        static let which = ControlCommand.Switch.delaysContentTouches
        static let configuration = CommandConfiguration(
            commandName: which.rawValue,
            abstract: "Hold touches back from the content until they are known not to scroll (on) or send them at once (off) (delaysContentTouches), until the next reload.")
        @OptionGroup var options: SocketOptions
        @Argument(help: "on or off.") var state: String
    }

    struct CanCancelContentTouches: SwitchCommand {
        static let which = ControlCommand.Switch.canCancelContentTouches
        static let configuration = CommandConfiguration(
            commandName: which.rawValue,
            abstract: "Let a drag take a touch back from the content (on) or leave it the content's (off) (canCancelContentTouches), until the next reload.")
        @OptionGroup var options: SocketOptions
        @Argument(help: "on or off.") var state: String
    }
}
