// swift-tools-version:6.0
// The RowCast plugin SDK: what a cell-controller plugin depends on, and nothing else.
//
// - RowCastKit: the CellController protocol, Item, Row, and RowCastPluginExport, which exports
//   controllers over the C ABI. It re-exports RowCastJSON, so a plugin imports RowCastKit alone.
// - RowCastJSON: the JSON value, parser and writer; most of rowcastd's modules use it without
//   the rest (the engine and the declarative cells still import RowCastKit for actions and items).
// - CRowCastPlugin: the C ABI itself (include/rowcast_plugin.h).
// - RowCastKitTesting: helpers to render items through a controller in unit tests.
//
// No dependencies beyond the standard library. rowcastd's package uses this one by path, and
// `make install` puts a copy in PREFIX/share/rowcast/sdk for plugins built outside the repo.
import PackageDescription

let package = Package(
    name: "RowCastSDK",
    products: [
        .library(name: "RowCastKit", targets: ["RowCastKit"]),
        .library(name: "RowCastJSON", targets: ["RowCastJSON"]),
        .library(name: "CRowCastPlugin", targets: ["CRowCastPlugin"]),
        .library(name: "RowCastKitTesting", targets: ["RowCastKitTesting"]),
    ],
    targets: [
        .target(name: "CRowCastPlugin"),
        .target(name: "RowCastJSON"),
        .target(name: "RowCastKit", dependencies: ["CRowCastPlugin", "RowCastJSON"]),
        .target(name: "RowCastKitTesting", dependencies: ["RowCastKit", "CRowCastPlugin"]),
    ]
)
