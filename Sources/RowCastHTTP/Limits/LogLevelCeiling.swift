import Logging

/// A log handler that writes what another one would, at most at `ceiling`: for the lines
/// Hummingbird writes about one client's connection (a first request whose negotiation ended
/// because the connection was closed under it, say, logged as `error`), which a client can
/// cause at will and which say nothing wrong about the server. The limits' own lines
/// (`HTTPConnectionLimiter`) say what happened, throttled.
struct LogLevelCeiling: LogHandler {
    /// The handler written to.
    var base: any LogHandler
    /// The highest level written.
    let ceiling: Logger.Level

    /// A handler writing `base`'s lines at most at `ceiling`.
    init(_ base: any LogHandler, ceiling: Logger.Level) {
        self.base = base
        self.ceiling = ceiling
    }

    /// The level the base handler writes from.
    var logLevel: Logger.Level {
        get { base.logLevel }
        set { base.logLevel = newValue }
    }

    /// The base handler's metadata.
    var metadata: Logger.Metadata {
        get { base.metadata }
        set { base.metadata = newValue }
    }

    /// The base handler's metadata provider.
    var metadataProvider: Logger.MetadataProvider? {
        get { base.metadataProvider }
        set { base.metadataProvider = newValue }
    }

    /// One metadata value of the base handler.
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { base[metadataKey: key] }
        set { base[metadataKey: key] = newValue }
    }

    /// Writes the line at `min(level, ceiling)`, if the base handler writes that level.
    func log(event: LogEvent) {
        var event = event
        event.level = min(event.level, ceiling)
        guard event.level >= base.logLevel else { return }
        base.log(event: event)
    }
}
