// swift-tools-version:6.0
import PackageDescription

/// Release builds of the engine's modules skip the dynamic exclusivity checks.
let uncheckedExclusivityInRelease: [SwiftSetting] = [
    .unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))
]

/// The plugin SDK's products, from the package in SDK/.
let kit = Target.Dependency.product(name: "RowCastKit", package: "sdk")
/// The SDK's JSON alone (RowCastKit re-exports it for plugins).
let json = Target.Dependency.product(name: "RowCastJSON", package: "sdk")
let abi = Target.Dependency.product(name: "CRowCastPlugin", package: "sdk")

let package = Package(
    name: "RowCast",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "rowcastd", targets: ["rowcastd"]),
        .executable(name: "rowcast", targets: ["rowcast"]),
        .executable(name: "rowcast-bench", targets: ["RowCastBench"]),
        .executable(name: "rowcast-zmq-baseline", targets: ["rowcast-zmq-baseline"]),
        .executable(name: "rowcast-plugin-host", targets: ["rowcast-plugin-host"]),
        .library(name: "RowCastClient", targets: ["RowCastClient"]),
        // Cell-controller plugins: each is a shared library loaded by rowcastd at run time.
        // The file name (librowcast-<name>.so) matches the loader's pattern.
        .library(name: "rowcast-product", type: .dynamic, targets: ["ProductCellEntry"]),
        .library(name: "rowcast-advertising", type: .dynamic, targets: ["AdvertisingCellEntry"]),
    ],
    dependencies: [
        // The plugin SDK (RowCastKit, CRowCastPlugin, RowCastKitTesting): a package of its own
        // that plugin authors depend on alone.
        .package(path: "SDK"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        // rowcastd's HTTP endpoint (/metrics, /healthz, and routes others install).
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // NIOHTTPTypes: the request and response parts the HTTP connection limits observe
        // (already resolved as a dependency of Hummingbird).
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        // The web gateway's user tokens (JWT: HS256, ES256, RS256), with swift-crypto and
        // swift-certificates beneath it.
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.7.1"),
    ],
    targets: [
        .systemLibrary(
            name: "CZeroMQ",
            providers: [.apt(["libzmq3-dev"])]
        ),
        .target(name: "ZeroMQ", dependencies: ["CZeroMQ"]),
        // libpq, for the PostgreSQL store (blocking calls and pipeline mode suit its commit thread).
        .systemLibrary(name: "CPostgreSQL", providers: [.apt(["libpq-dev"])]),
        // The Linux calls Swift cannot import (variadic prctl, memfd, timerfd, posix_spawn).
        .target(name: "CRowCastHost"),
        // Links the system SQLite for its process-wide settings (rowcast_sqlite_setup.c).
        .target(name: "CRowCastSQLite", linkerSettings: [.linkedLibrary("sqlite3")]),
        // CRC32C for the checksum every stored record carries (the CPU's instruction where it has one).
        .target(name: "CRowCastChecksum"),
        // What rowcastd and rowcast share that is not plugin SDK (endpoint syntax, version, lock).
        .target(name: "RowCastSupport", dependencies: [json]),
        // The wire model both ends share: the delta and the index path that RowCastEngine encodes
        // and RowCastClient decodes (no daemon dependencies, so the client stays light).
        .target(name: "RowCastWire", dependencies: [json]),
        .target(
            name: "RowCastCells",
            dependencies: [
                "RowCastPluginHosting",
                kit, json,
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "Yams", package: "Yams"),
            ]
        ),
        // The feeds, the diff, request decoding, the ledger and the commit pipeline over the
        // store protocol (`FeedStore`): no sockets, no SQLite, no processes.
        .target(
            name: "RowCastEngine",
            dependencies: [
                kit, json,
                "RowCastSupport",
                "RowCastWire",
                "RowCastPluginHosting",
                "CRowCastHost",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Collections", package: "swift-collections"),
            ],
            swiftSettings: uncheckedExclusivityInRelease
        ),
        // The SQLite store behind the engine's store protocol.
        .target(
            name: "RowCastStore",
            dependencies: [
                json,
                "RowCastEngine",
                "RowCastWire",
                "RowCastSupport",
                "CRowCastSQLite",
                "CRowCastChecksum",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            swiftSettings: uncheckedExclusivityInRelease
        ),
        // The PostgreSQL store behind the same protocol (`rowcastd --store postgresql://…`).
        .target(
            name: "RowCastPostgres",
            dependencies: [
                json, "RowCastEngine", "RowCastWire", "RowCastStore", "RowCastSupport", "CPostgreSQL",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Plugins: loading over the C ABI, the host protocol, supervision of the host
        // processes, and the host's own main. No engine, no store.
        .target(
            name: "RowCastPluginHosting",
            dependencies: [
                json,
                abi,
                "RowCastSupport",
                "RowCastWire",
                "CRowCastHost",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: uncheckedExclusivityInRelease
        ),
        .target(
            name: "RowCastDaemon",
            dependencies: [
                "ZeroMQ",
                "RowCastEngine",
                "RowCastStore",
                "RowCastPostgres",
                "RowCastPluginHosting",
                "RowCastWire",
                json,
                "RowCastSupport",
                "RowCastCells",
                "CRowCastHost",
                "RowCastHTTP",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Yams", package: "Yams"),
            ]
        ),
        .target(name: "RowCastClient", dependencies: ["ZeroMQ", json, "RowCastWire"]),
        // `rowcast relay`: ZeroMQ's XSUB/XPUB proxy plus a read-only control forwarder.
        .target(name: "RowCastRelay", dependencies: ["ZeroMQ", json, "RowCastClient", "RowCastSupport"]),
        // rowcastd's HTTP endpoint on its own SwiftNIO threads: /metrics, /healthz and the
        // routes other targets install (the web gateway).
        .target(
            name: "RowCastHTTP",
            dependencies: [
                json,
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The full-screen view of `rowcast watch`: the pure screen, viewport, highlights and
        // key decoder, the terminal, and the loop.
        .target(name: "RowCastWatch", dependencies: ["RowCastClient", json]),
        // The web gateway: one replica per feed, served to browsers as HTML, WebSocket and SSE.
        // Installed on a Hummingbird router by `rowcast serve` (and, later, by rowcastd's http
        // endpoint); it depends on the client library only, never on the daemon.
        .target(
            name: "RowCastGateway",
            dependencies: [
                "RowCastClient",
                "RowCastWire",
                "RowCastSupport",
                "ZeroMQ",
                json,
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "JWTKit", package: "jwt-kit"),
            ]
        ),
        .executableTarget(
            name: "rowcastd",
            dependencies: [
                "RowCastDaemon",
                "RowCastGateway",
                "RowCastEngine",
                "RowCastStore",
                "RowCastHTTP",
                json,
                "RowCastSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(name: "rowcast-plugin-host", dependencies: ["RowCastPluginHosting"]),
        .executableTarget(
            name: "rowcast",
            dependencies: [
                "RowCastClient",
                // Loads plugins for `rowcast plugin check` and `render` as rowcastd does.
                "RowCastPluginHosting",
                "RowCastEngine",
                "RowCastWire",
                json,
                "RowCastSupport",
                "RowCastWatch",
                "RowCastRelay",
                "RowCastGateway",
                // The origin policy of `rowcast serve`, shared with rowcastd's HTTP endpoint.
                "RowCastHTTP",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(
            name: "RowCastBench",
            dependencies: [
                "RowCastEngine", "RowCastStore", "RowCastPluginHosting", "RowCastWire", "RowCastDaemon", kit, json,
                "RowCastClient", "RowCastWatch", "ZeroMQ", "RowCastTesting", "ProductCell", abi,
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ],
            path: "Benchmarks/RowCastBench"
        ),
        // The raw ZeroMQ ceiling of rowcast-bench, in C against libzmq (no Swift wrapper).
        .executableTarget(
            name: "rowcast-zmq-baseline", path: "Benchmarks/ZMQBaseline",
            linkerSettings: [.linkedLibrary("zmq"), .linkedLibrary("pthread")]),
        .target(name: "RowCastTesting"),
        .target(name: "CRowCastFuzz"),
        // libFuzzer harnesses over the parsers; `make fuzz` builds this with -sanitize=fuzzer.
        .executableTarget(
            name: "rowcast-fuzz",
            dependencies: [
                "CRowCastFuzz", "RowCastEngine", "RowCastPluginHosting", "RowCastWire", "RowCastCells", kit,
                "RowCastClient",
            ], path: "Fuzz/RowCastFuzz"),
        // Each plugin is its controllers (tested by PluginCellTests) plus an entry target that
        // exports them: every plugin's entry defines the same C symbol, rowcast_plugin_entry,
        // so the one test executable links the controllers only.
        .target(name: "ProductCell", dependencies: [kit], path: "Plugins/ProductCell"),
        .target(name: "ProductCellEntry", dependencies: ["ProductCell", kit], path: "Plugins/ProductCellEntry"),
        .target(name: "AdvertisingCell", dependencies: [kit], path: "Plugins/AdvertisingCell"),
        .target(
            name: "AdvertisingCellEntry", dependencies: ["AdvertisingCell", kit], path: "Plugins/AdvertisingCellEntry"),
        .testTarget(name: "ZeroMQTests", dependencies: ["ZeroMQ"]),
        .testTarget(name: "RowCastKitTests", dependencies: [kit, json]),
        .testTarget(name: "RowCastSupportTests", dependencies: ["RowCastSupport"]),
        .testTarget(
            name: "RowCastCellsTests",
            dependencies: [
                "RowCastCells", "RowCastEngine", "RowCastPluginHosting", "RowCastStore", "RowCastWire", kit, json,
            ]),
        .testTarget(
            name: "PluginCellTests",
            dependencies: [
                "ProductCell", "AdvertisingCell", "RowCastCells", kit,
                .product(name: "RowCastKitTesting", package: "sdk"),
            ]),
        .testTarget(
            name: "RowCastCoreTests",
            dependencies: [
                "RowCastEngine", "RowCastStore", "RowCastPluginHosting", "RowCastWire", "RowCastSupport", kit, json,
                "RowCastTesting", "CRowCastChecksum", "RowCastPostgres", .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        .testTarget(
            name: "RowCastWireTests",
            dependencies: [
                "RowCastWire", "RowCastEngine", "RowCastStore", "RowCastPluginHosting", "RowCastClient", json,
            ]),
        .testTarget(name: "RowCastRelayTests", dependencies: ["RowCastRelay", "RowCastClient", json, "ZeroMQ"]),
        .testTarget(
            name: "RowCastGatewayTests",
            dependencies: [
                "RowCastGateway", "RowCastClient", json, "RowCastEngine", "RowCastTesting",
                .product(name: "JWTKit", package: "jwt-kit"),
            ]),
        .testTarget(name: "RowCastWatchTests", dependencies: ["RowCastWatch", "RowCastClient", json]),
        .testTarget(
            name: "RowCastClientTests",
            dependencies: [
                "RowCastClient", json, "RowCastEngine", "RowCastStore", "RowCastPluginHosting", "RowCastWire", "ZeroMQ",
                "RowCastTesting",
            ]),
        .testTarget(
            name: "RowCastDaemonTests",
            dependencies: [
                "RowCastDaemon", "RowCastEngine", "RowCastStore", "RowCastPluginHosting", "RowCastWire", json, "ZeroMQ",
                "RowCastTesting", "RowCastHTTP",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "RowCastClient", "RowCastEngine", "RowCastStore", "RowCastPluginHosting", "RowCastWire", json,
                "RowCastDaemon", "RowCastSupport", "ZeroMQ", "RowCastTesting",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
    ]
)
