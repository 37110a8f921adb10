// flickctl claim: the content keeps a touch (docs/protocol.md, `claim`).
import ArgumentParser
import FlickControl

extension FlickCtl {
    struct Claim: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Keep a touch for the content: a drag no longer takes it back (touchesShouldCancel answering false).",
            discussion: """
            CONTACT is the `contact` of the touch's contentTouchDown or longPress event. Refused (exit 65) when \
            the content does not have that touch: it lifted, scrolls already, or is still held back. An app \
            sends {"cmd": "claim", "contact": N} on its own connection instead, as soon as it hears the event.
            """)
        @OptionGroup var options: SocketOptions
        @Argument(help: "The finger's id, as the content-touch events give it.") var contact: Int
        func run() throws { try options.run(ControlRequest(cmd: "claim", contact: contact)) }
    }
}
