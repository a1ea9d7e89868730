/// The files `rowcast plugin new` writes: a Swift package on the plugin SDK
/// (``swiftFiles(name:sdk:)``), or a C file, its header and its Makefile (``cFiles(name:header:)``).
enum PluginTemplate {
    /// Whether `name` can name a plugin, its item type and its file (`librowcast-NAME.so`).
    static func isValidName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, ("a"..."z").contains(first), name.utf8.count <= 64 else {
            return false
        }
        return name.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
    }

    /// `my-note` → `MyNote`: the prefix of the Swift type and target names.
    static func typeName(_ name: String) -> String {
        name.split(separator: "-").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    /// The sample item rendered by `rowcast plugin render --item item.json`.
    static func sampleItem(_ name: String) -> String {
        #"{"id":"1","type":"\#(name)","data":{"title":"Hello","summary":"My first row"}}"# + "\n"
    }

    /// `text` escaped for the inside of a Swift string literal.
    static func literal(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    }

    /// Package.swift, the controller, the entry symbol, a test, item.json, README.md and .gitignore.
    static func swiftFiles(name: String, sdk: String) -> [(path: String, text: String)] {
        // A path dependency's package identity is its folder's name, lowercased (`sdk` for an
        // installed SDK and a checkout's SDK/, whatever --sdk names otherwise).
        let identity = literal(String(sdk.split(separator: "/").last ?? "sdk").lowercased())
        let sdk = literal(sdk)
        let type = typeName(name)
        let target = type + "Cell"
        return [
            (
                "Package.swift",
                """
                // swift-tools-version:6.0
                // The "\(name)" cell-controller plugin for rowcastd. Build: swift build -c release
                // The plugin is .build/release/librowcast-\(name).so (rowcastd loads librowcast-*.so).
                import PackageDescription

                let package = Package(
                    name: "rowcast-\(name)",
                    products: [
                        .library(name: "rowcast-\(name)", type: .dynamic, targets: ["\(target)"]),
                    ],
                    dependencies: [
                        // The RowCast plugin SDK, a local package (no network): the one rowcast
                        // plugin new found. Its folder's name, lowercased, is the package: below.
                        .package(path: "\(sdk)"),
                    ],
                    targets: [
                        .target(name: "\(target)", dependencies: [.product(name: "RowCastKit", package: "\(identity)")]),
                        .testTarget(
                            name: "\(target)Tests",
                            dependencies: ["\(target)", .product(name: "RowCastKitTesting", package: "\(identity)")]
                        ),
                    ]
                )

                """
            ),
            (
                "Sources/\(target)/\(type)Controller.swift",
                """
                import RowCastKit

                /// Renders `\(name)` items into `\(target)` rows.
                struct \(type)Controller: CellController {
                    /// What a row shows, read from the item's `data`.
                    struct Model {
                        /// `data.title` (required).
                        let title: String
                        /// `data.summary` (optional).
                        let summary: String?
                    }

                    /// The item types this controller renders.
                    static let itemTypes = ["\(name)"]

                    /// A controller with no state: rows depend on the item alone.
                    init() {}

                    /// Reads the fields; a missing or mistyped one rejects the item with an error
                    /// naming the field, which the publisher gets.
                    func model(from item: Item) throws(ItemError) -> Model {
                        Model(title: try item.string("title"), summary: try item.optionalString("summary"))
                    }

                    /// The row subscribers get (rowcastd adds "id" and "type").
                    func row(for model: Model, item: Item) -> Row {
                        var content: JSONObject = ["title": .string(model.title)]
                        if let summary = model.summary { content["summary"] = .string(summary) }
                        return Row(cell: "\(target)", height: 64, content: content,
                                   actions: [.select(kind: "open", params: ["id": .string(item.id)])])
                    }

                    /// What a `select` on the row publishes to subscribers.
                    func select(action: String, model: Model, item: Item) throws(ItemError) -> JSONObject? {
                        guard action == "select" else { throw .unknownAction(action) }
                        return ["kind": "open", "id": .string(item.id)]
                    }
                }

                """
            ),
            (
                "Sources/\(target)/PluginEntry.swift",
                """
                import RowCastKit

                /// The symbol rowcastd calls: the plugin's descriptor (name, version, types, calls).
                @_cdecl("rowcast_plugin_entry")
                public func rowcastPluginEntry() -> UnsafeRawPointer {
                    RowCastPluginExport.descriptor(name: "\(name)", version: "0.1.0", controllers: [\(type)Controller.self])
                }

                """
            ),
            (
                "Tests/\(target)Tests/\(type)ControllerTests.swift",
                """
                @testable import \(target)
                import RowCastKit
                import RowCastKitTesting
                import Testing

                @Suite struct \(type)ControllerTests {
                    let harness = ControllerHarness<\(type)Controller>()

                    @Test func rendersTheSampleItem() throws {
                        let row = try harness.row(#"\(sampleItem(name).dropLast())"#)
                        #expect(row == Row(cell: "\(target)", height: 64, content: ["title": "Hello", "summary": "My first row"],
                                           actions: [.select(kind: "open", params: ["id": "1"])]))
                    }

                    @Test func refusesAnItemWithoutTitle() {
                        #expect(harness.error(id: "2", data: [:])?.field == "title")
                    }

                    @Test func exportsTheTypeOverTheCABI() {
                        let plugin = ExportedPlugin(rowcastPluginEntry())
                        #expect(plugin.itemTypes == ["\(name)"])
                        #expect(plugin.render(#"{"id":"3","type":"\(name)","data":{}}"#).errorCode == "missing_field")
                    }
                }

                """
            ),
            ("item.json", sampleItem(name)),
            (".gitignore", ".build/\n.swiftpm/\n"),
            (
                "README.md",
                """
                # The \(name) plugin for rowcastd

                ```sh
                swift build -c release        # .build/release/librowcast-\(name).so
                swift test                    # the controller's tests (RowCastKitTesting)
                rowcast plugin check .build/release/librowcast-\(name).so
                rowcast plugin render .build/release/librowcast-\(name).so --item item.json
                sudo install -m 0644 .build/release/librowcast-\(name).so /usr/local/lib/rowcast/plugins/
                rowcast reload
                ```

                The install line is for an installed rowcastd. A rowcastd run from a RowCast checkout
                (`make run`) loads the plugins beside it: copy the file into that checkout's
                `.build/debug/`, then `rowcast reload`.

                Build with the same Swift toolchain as rowcastd (see PLUGINS.md, "Toolchains").

                """
            ),
        ]
    }
}
