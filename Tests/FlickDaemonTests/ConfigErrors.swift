@testable import FlickDaemon

/// What `ConfigLoader` says of `text` read as the file `flickd.toml`: its error, or nil when the
/// text loads. The config suites' one way to provoke an error.
func configError(_ text: String) -> ConfigError? {
    do {
        _ = try ConfigLoader.parse(text, path: "flickd.toml")
        return nil
    } catch {
        return error
    }
}
