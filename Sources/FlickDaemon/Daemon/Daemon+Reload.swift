import FoundationEssentials
import Logging

/// `systemctl reload`: the config file read again, applied to every part at once, or refused
/// with the config in force kept.
extension Daemon {
    /// Re-reads the config file; a good one applies at once, a bad one is logged and thrown,
    /// and the config in force stays.
    /// - Returns: the file read and the keys that changed.
    @discardableResult
    public func reload() throws -> ConfigReload {
        notifier.reloading(at: UInt64(max(0, loop.now.nanoseconds / 1000)))
        defer { notifier.ready(status: "reloaded") }
        let changes: [ConfigChanges.Change]
        let read: Bool
        do {
            let (loaded, fromFile) = try ConfigLoader.load(path: options.configPath, explicit: options.configPathExplicit)
            let next = loaded.placed(in: ProcessInfo.processInfo.environment)
            try PipelineBuilder.apply(next, previous: configuration, to: pipeline, at: loop.now)
            commands.snapshotDirectory = next.snapshotFolder
            content.apply(next)
            metrics.apply(next)
            stateSaving?.apply(next)
            hotplug?.apply(next)
            gestureJournal.apply(next, at: loop.now)
            configuration = next
            let values = fromFile ? ConfigChanges.values(path: options.configPath) : [:]
            (changes, configValues, read) = (ConfigChanges.between(configValues, values), values, fromFile)
        } catch {
            logger.report(.error, "reload refused, keeping the config in force: ", error)
            metrics.reloaded(accepted: false)
            throw error
        }
        metrics.reloaded(accepted: true)
        logger.logLevel = Logger.Level(rawValue: configuration.logLevel) ?? .info
        pipeline.tracing = logger.logLevel <= .debug
        runner.rearm()
        for change in changes { logger.notice("reload: \(change.line)") }
        logger.notice("reloaded \(options.configPath): deceleration \(configuration.decelerationRate); \(ConfigChanges.summary(changes))")
        return ConfigReload(config: read ? options.configPath : nil, changes: changes)
    }
}
