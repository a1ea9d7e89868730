// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "RowCast",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "rowcastd", targets: ["rowcastd"]),
        .executable(name: "rowcast", targets: ["rowcast"]),
        .executable(name: "rowcast-bench", targets: ["RowCastBench"]),
        .executable(name: "rowcast-plugin-host", targets: ["rowcast-plugin-host"]),
        .library(name: "RowCastKit", targets: ["RowCastKit"]),
        .library(name: "RowCastClient", targets: ["RowCastClient"]),
        // Cell-controller plugins: each is a shared library loaded by rowcastd at run time.
        // The file name (librowcast-<name>.so) matches the loader's pattern.
        .library(name: "rowcast-product", type: .dynamic, targets: ["ProductCell"]),
        .library(name: "rowcast-advertising", type: .dynamic, targets: ["AdvertisingCell"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CZeroMQ",
            providers: [.apt(["libzmq3-dev"])]
        ),
        .target(name: "ZeroMQ", dependencies: ["CZeroMQ"]),
        .target(name: "CRowCastPlugin"),
        .target(name: "CRowCastHost"),
        .target(name: "RowCastKit", dependencies: ["CRowCastPlugin"]),
        .target(
            name: "RowCastCore",
            dependencies: [
                "RowCastKit",
                "CRowCastPlugin",
                "CRowCastHost",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Collections", package: "swift-collections"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .target(
            name: "RowCastDaemon",
            dependencies: [
                "ZeroMQ",
                "RowCastCore",
                "RowCastKit",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Yams", package: "Yams"),
            ]
        ),
        .target(name: "RowCastClient", dependencies: ["ZeroMQ", "RowCastKit"]),
        // The full-screen view of `rowcast watch`: the pure screen, viewport, highlights and
        // key decoder, the terminal, and the loop.
        .target(name: "RowCastWatch", dependencies: ["RowCastClient", "RowCastKit"]),
        .executableTarget(
            name: "rowcastd",
            dependencies: [
                "RowCastDaemon",
                "RowCastCore",
                "RowCastKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(name: "rowcast-plugin-host", dependencies: ["RowCastCore", "CRowCastHost"]),
        .executableTarget(
            name: "rowcast",
            dependencies: [
                "RowCastClient",
                "RowCastKit",
                "RowCastWatch",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "RowCastBench",
            dependencies: [
                "RowCastCore", "RowCastKit", "RowCastClient", "RowCastWatch", "ZeroMQ", "RowCastTesting",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ],
            path: "Benchmarks/RowCastBench"
        ),
        .target(name: "RowCastTesting"),
        .target(name: "CRowCastFuzz"),
        // libFuzzer harnesses over the parsers; `make fuzz` builds this with -sanitize=fuzzer.
        .executableTarget(name: "rowcast-fuzz", dependencies: ["CRowCastFuzz", "RowCastCore", "RowCastKit", "RowCastClient"], path: "Fuzz/RowCastFuzz"),
        .target(name: "ProductCell", dependencies: ["RowCastKit"], path: "Plugins/ProductCell"),
        .target(name: "AdvertisingCell", dependencies: ["RowCastKit"], path: "Plugins/AdvertisingCell"),
        .testTarget(name: "ZeroMQTests", dependencies: ["ZeroMQ"]),
        .testTarget(name: "RowCastKitTests", dependencies: ["RowCastKit"]),
        .testTarget(name: "RowCastCoreTests", dependencies: ["RowCastCore", "RowCastKit", "RowCastTesting", .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(name: "RowCastWatchTests", dependencies: ["RowCastWatch", "RowCastClient", "RowCastKit"]),
        .testTarget(name: "RowCastClientTests", dependencies: ["RowCastClient", "RowCastKit", "RowCastCore", "ZeroMQ", "RowCastTesting"]),
        .testTarget(
            name: "RowCastDaemonTests",
            dependencies: [
                "RowCastDaemon", "RowCastCore", "RowCastKit", "ZeroMQ", "RowCastTesting",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]
        ),
        .testTarget(name: "EndToEndTests", dependencies: ["RowCastClient", "RowCastCore", "RowCastKit", "RowCastDaemon", "ZeroMQ", "RowCastTesting"]),
    ]
)
