import FlickCore
import Logging

extension Logger {
    /// Logs `error` after `lead`, with its context as journal fields (`FLICK_ERROR_SOURCE`,
    /// `FLICK_ERROR_LINE`, `FLICK_ERROR_KEY`, …): the same one rendering the command line and the
    /// control socket's replies give (`FlickError`).
    func report(_ level: Logger.Level, _ lead: String, _ error: any Error) {
        var metadata: Logger.Metadata = [:]
        if let flick = error as? any FlickError {
            for (key, value) in flick.context.fields { metadata[key.lowercased()] = .string(value) }
        }
        log(level: level, "\(lead)\(error)", metadata: metadata)
    }
}
