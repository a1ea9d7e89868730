import ArgumentParser
import RowCastClient
import RowCastCore
import RowCastKit

/// `rowcast plugin render FILE`: render items with a plugin file, without a daemon.
struct PluginRenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render items with a plugin file as rowcastd would, and print the rows or the items' errors.",
        discussion: """
            Items come from --item (one JSON item, a JSON array of them, or NDJSON) or, without \
            it, from standard input. Each is checked as a publish request's item is, then \
            rendered by the plugin, and its output checked. Each row is printed as one line of \
            JSON, exactly as subscribers receive it (rowcastd adds "id" and "type"); each \
            refused item as one line on standard error, "error: code: message", as the \
            publisher would get it. The exit status is 1 when any item failed.

            Examples:
              rowcast plugin render librowcast-article.so --item item.json
              printf '%s\\n' '{"id":"1","type":"article","data":{"title":"Hi"}}' | rowcast plugin render librowcast-article.so
            """
    )

    @Argument(help: ArgumentHelp("The plugin file (a shared library).", valueName: "file"))
    var file: String

    @Option(help: ArgumentHelp("Read the items from this file (JSON, a JSON array, or NDJSON); - or no --item reads standard input.", valueName: "path"))
    var item: String?

    @OptionGroup var loading: PluginLoadOptions

    func run() throws {
        try reportingErrors {
            let source = item ?? "-"
            let items = try Self.items(in: try InputText.read(source, option: "--item"), source: source == "-" ? "stdin" : source)
            let plugin = try loading.load(file)
            var failed = false
            for (offset, item) in items.enumerated() {
                switch plugin.renderItem(item, context: "item \(offset + 1)") {
                case .success(let row):
                    Output.line(String(decoding: row.bytes, as: UTF8.self))
                case .failure(let error):
                    failed = true
                    Output.error(RowCastClientError(code: error.code.rawValue, message: error.message, field: error.field, id: error.id))
                }
            }
            if failed { throw ExitCode.failure }
        }
    }

    /// The items in `text`: bare items or upsert requests (whose item is taken).
    static func items(in text: String, source: String) throws(RowCastClientError) -> [[UInt8]] {
        let reader = RequestReader(source: source, defaultFeed: "render")
        return try reader.requests(from: text).enumerated().map { (offset, request) throws(RowCastClientError) in
            guard request.objectValue?["op"]?.stringValue == "upsert", let item = request.objectValue?["item"] else {
                throw RowCastClientError(code: "invalid_request", message: "\(source) element \(offset + 1): not an item (give items, or upsert requests)")
            }
            return item.serialized()
        }
    }
}
