import Logging

/// Every key of the configuration file (Config/rowcastd.yaml), in the order the file lists
/// them. The one place that says what a key means, what it takes and when it applies.
public enum ConfigurationSchema {
    /// The keys, in file order.
    public static let settings: [ConfigurationSetting] = [
        text("endpoints.ingest", flag: "--ingest", kind: .endpoint, reload: false, \.ingestEndpoint),
        text("endpoints.control", flag: "--control", kind: .endpoint, reload: false, \.controlEndpoint),
        text("endpoints.publish", flag: "--publish", kind: .endpoint, reload: false, \.publishEndpoint),
        text("endpoints.http", flag: "--http", kind: .httpEndpoint, reload: false, \.httpEndpoint),
        texts("plugin_directories", flag: "--plugins", kind: .paths, reload: true, \.pluginDirectories),
        texts("cell_directories", flag: "--cells", kind: .paths, reload: true, \.cellDirectories),
        ConfigurationSetting(
            key: "plugin_isolation", flag: "--plugin-isolation",
            kind: .choice(PluginIsolation.allCases.map(\.rawValue)), appliesOnReload: false,
            read: { .text($0.pluginIsolation.rawValue) },
            write: { configuration, value in
                if case .text(let text) = value, let isolation = PluginIsolation(rawValue: text) {
                    configuration.pluginIsolation = isolation
                }
            }
        ),
        text("plugin_host", flag: "--plugin-host", kind: .path, reload: false, \.pluginHost),
        integer(
            "plugin_timeout_ms", flag: "--plugin-timeout-ms", range: 10...600_000, reload: false,
            \.pluginTimeoutMilliseconds),
        integer(
            "plugin_memory_mb", flag: "--plugin-memory-mb", range: 0...1_048_576, reload: false, \.pluginMemoryMegabytes
        ),
        text("plugin_user", flag: "--plugin-user", kind: .user, reload: false, \.pluginUser),
        texts(
            "plugin_unconfined", flag: "--plugin-unconfined", kind: .pluginNames, reload: false, \.pluginUnconfined),
        text("state_directory", flag: "--state-dir", kind: .path, reload: false, \.stateDirectory),
        text("store", flag: "--store", kind: .store, reload: false, \.store),
        text("cluster.node_name", flag: "--node-name", kind: .nodeName, reload: false, \.nodeName),
        integer("cluster.lease_ms", flag: "--lease-ms", range: 300...600_000, reload: false, \.leaseMilliseconds),
        text("cluster.advertise_host", flag: "--advertise-host", kind: .hostName, reload: false, \.advertiseHost),
        ConfigurationSetting(
            key: "durability", flag: "--durability", kind: .choice(Durability.allCases.map(\.rawValue)),
            appliesOnReload: false,
            read: { .text($0.durability.rawValue) },
            write: { configuration, value in
                if case .text(let text) = value, let durability = Durability(rawValue: text) {
                    configuration.durability = durability
                }
            }
        ),
        integer(
            "commit_interval_us", flag: "--commit-interval-us", range: 0...100_000, reload: true,
            \.commitIntervalMicroseconds),
        integer("engine.threads", flag: "--engine-threads", range: 1...64, reload: false, \.engineThreads),
        ConfigurationSetting(
            key: "log_level", flag: "--log-level", kind: .choice(Logger.Level.allCases.map(\.rawValue)),
            appliesOnReload: true,
            read: { .text($0.logLevel.rawValue) },
            write: { configuration, value in
                if case .text(let text) = value, let level = Logger.Level(rawValue: text) {
                    configuration.logLevel = level
                }
            }
        ),
        integer("heartbeat_ms", flag: "--heartbeat-ms", range: 10...3_600_000, reload: true, \.heartbeatMilliseconds),
        integer(
            "health_stall_ms", flag: "--health-stall-ms", range: 100...3_600_000, reload: true,
            \.healthStallMilliseconds),
        text("socket_mode", flag: "--socket-mode", kind: .mode, reload: false, \.socketMode),
        text("socket_group", flag: "--socket-group", kind: .group, reload: false, \.socketGroup),
        boolean("allow_insecure_tcp", flag: "--allow-insecure-tcp", reload: false, \.allowInsecureTCP),
        texts("http_allowed_hosts", flag: "--http-allowed-host", kind: .hostNames, reload: false, \.httpAllowedHosts),
        texts(
            "http_allowed_origins", flag: "--http-allowed-origin", kind: .origins, reload: false, \.httpAllowedOrigins),
        texts("http_image_origins", flag: "--http-image-origin", kind: .origins, reload: false, \.httpImageOrigins),
        texts(
            "http_token_secret_files", flag: "--http-token-secret-file", kind: .paths, reload: false,
            \.httpTokenSecretFiles),
        texts(
            "http_token_public_key_files", flag: "--http-token-public-key-file", kind: .paths, reload: false,
            \.httpTokenPublicKeyFiles),
        text(
            "http_token_audience", flag: "--http-token-audience", kind: .optionalText, reload: false,
            \.httpTokenAudience),
        text("http_token_issuer", flag: "--http-token-issuer", kind: .optionalText, reload: false, \.httpTokenIssuer),
        text(
            "http_tokens", flag: "--http-tokens", kind: .choice(["auto", "required", "off"]), reload: false,
            \.httpTokens),
        integer(
            "http_header_timeout_ms", flag: "--http-header-timeout-ms", range: 100...3_600_000, reload: false,
            \.httpHeaderTimeoutMilliseconds),
        integer(
            "http_idle_timeout_ms", flag: "--http-idle-timeout-ms", range: 100...3_600_000, reload: false,
            \.httpIdleTimeoutMilliseconds),
        integer(
            "http_write_timeout_ms", flag: "--http-write-timeout-ms", range: 100...3_600_000, reload: false,
            \.httpWriteTimeoutMilliseconds),
        integer(
            "http_max_connections_per_peer", flag: "--http-max-connections-per-peer", range: 1...1_000_000,
            reload: false, \.httpMaxConnectionsPerPeer),
        boolean("curve", flag: "--curve", reload: false, \.curve),
        text("curve_server_key", flag: "--curve-server-key", kind: .optionalPath, reload: false, \.curveServerKey),
        text("curve_clients_directory", flag: "--curve-clients", kind: .path, reload: true, \.curveClientsDirectory),
        integer(
            "drain_timeout_ms", flag: "--drain-timeout-ms", range: 100...3_600_000, reload: false,
            \.drainTimeoutMilliseconds),
        integer(
            "limits.max_message_bytes", flag: "--max-message-bytes", range: 1024...(256 << 20), reload: true,
            \.maximumMessageBytes),
        integer("limits.batch_limit", flag: "--batch-limit", range: 1...1_000_000, reload: true, \.batchLimit),
        integer("limits.linger_ms", flag: "--linger-ms", range: 0...60_000, reload: true, \.lingerMilliseconds),
        integer(
            "limits.publish_high_water_mark", flag: nil, range: 0...100_000_000, reload: false, \.publishHighWaterMark),
        integer(
            "limits.receive_high_water_mark", flag: nil, range: 0...100_000_000, reload: false, \.receiveHighWaterMark),
        integer(
            "limits.client_reply_queue", flag: "--client-reply-queue", range: 1...1_000_000, reload: false,
            \.clientReplyQueue),
        integer("limits.max_feeds", flag: "--max-feeds", range: 1...100_000_000, reload: true, \.stateLimits.feeds),
        integer(
            "limits.max_items_per_feed", flag: "--max-items-per-feed", range: 1...100_000_000, reload: true,
            \.stateLimits.itemsPerFeed),
        integer(
            "limits.max_sections_per_feed", flag: "--max-sections-per-feed", range: 1...10_000_000, reload: true,
            \.stateLimits.sectionsPerFeed),
        integer(
            "limits.max_stored_bytes", flag: "--max-stored-bytes", range: 1024...(1 << 50), reload: true,
            \.stateLimits.storedBytes),
        integer(
            "limits.history_deltas", flag: "--history-deltas", range: 0...1_000_000, reload: true,
            \.stateLimits.historyDeltas),
        integer(
            "limits.history_bytes", flag: "--history-bytes", range: 0...(1 << 40), reload: true,
            \.stateLimits.historyBytes),
    ]

    /// The setting for a dotted key.
    public static func setting(_ key: String) -> ConfigurationSetting? {
        settings.first { $0.key == key }
    }

    /// The keys that hold other keys (`endpoints`, `limits`).
    public static let sections: [String] = {
        var names: [String] = []
        for setting in settings {
            guard let dot = setting.key.firstIndex(of: ".") else { continue }
            let section = String(setting.key[..<dot])
            if !names.contains(section) { names.append(section) }
        }
        return names
    }()

    /// The keys allowed directly under `prefix` ("" for the top level, "limits." for a section).
    public static func keys(under prefix: String) -> [String] {
        var names: [String] = []
        for setting in settings where setting.key.hasPrefix(prefix) {
            let rest = setting.key.dropFirst(prefix.count)
            let name = String(rest.prefix(while: { $0 != "." }))
            if !names.contains(name) { names.append(name) }
        }
        return names
    }

    private static func text(
        _ key: String, flag: String?, kind: ConfigurationSetting.Kind, reload: Bool,
        _ path: WritableKeyPath<DaemonConfiguration, String> & Sendable
    ) -> ConfigurationSetting {
        ConfigurationSetting(
            key: key, flag: flag, kind: kind, appliesOnReload: reload,
            read: { .text($0[keyPath: path]) },
            write: { configuration, value in if case .text(let text) = value { configuration[keyPath: path] = text } }
        )
    }

    private static func texts(
        _ key: String, flag: String?, kind: ConfigurationSetting.Kind, reload: Bool,
        _ path: WritableKeyPath<DaemonConfiguration, [String]> & Sendable
    ) -> ConfigurationSetting {
        ConfigurationSetting(
            key: key, flag: flag, kind: kind, appliesOnReload: reload,
            read: { .texts($0[keyPath: path]) },
            write: { configuration, value in if case .texts(let texts) = value { configuration[keyPath: path] = texts }
            }
        )
    }

    private static func boolean(
        _ key: String, flag: String?, reload: Bool, _ path: WritableKeyPath<DaemonConfiguration, Bool> & Sendable
    ) -> ConfigurationSetting {
        ConfigurationSetting(
            key: key, flag: flag, kind: .boolean, appliesOnReload: reload,
            read: { .boolean($0[keyPath: path]) },
            write: { configuration, value in if case .boolean(let flag) = value { configuration[keyPath: path] = flag }
            }
        )
    }

    private static func integer(
        _ key: String, flag: String?, range: ClosedRange<Int>, reload: Bool,
        _ path: WritableKeyPath<DaemonConfiguration, Int> & Sendable
    ) -> ConfigurationSetting {
        ConfigurationSetting(
            key: key, flag: flag, kind: .integer(range), appliesOnReload: reload,
            read: { .integer($0[keyPath: path]) },
            write: { configuration, value in
                if case .integer(let number) = value { configuration[keyPath: path] = number }
            }
        )
    }
}
