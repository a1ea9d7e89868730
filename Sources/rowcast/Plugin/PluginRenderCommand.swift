import ArgumentParser
import RowCastClient
import RowCastWire
import RowCastJSON

/// `rowcast plugin render FILE`: render items with a plugin file, without a daemon.
struct PluginRenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render items with a plugin file as rowcastd would, and print the rows or the items' errors.",
        discussion: """
            Items come from --item (one JSON item, a JSON array of them, or NDJSON) or, without \
            --item and --section, from standard input. Each is checked as a publish request's item is, then \
            rendered by the plugin, and its output checked. Each row is printed as one line of \
            JSON, exactly as subscribers receive it (rowcastd adds "id" and "type"); each \
            refused item as one line on standard error, "error: code: message", as the \
            publisher would get it. --section renders section header rows the same way (each \
            is the section's "headerRow" in snapshots and deltas), before the items. The exit \
            status is 1 when any item or section failed.

            Examples:
              rowcast plugin render librowcast-article.so --item item.json
              printf '%s\\n' '{"id":"1","type":"article","data":{"title":"Hi"}}' | rowcast plugin render librowcast-article.so
            """
    )

    @Argument(help: ArgumentHelp("The plugin file (a shared library).", valueName: "file"))
    var file: String

    @Option(
        help: ArgumentHelp(
            "Read the items from this file (JSON, a JSON array, or NDJSON); - reads standard input, as does giving neither --item nor --section.",
            valueName: "path"))
    var item: String?

    @Option(
        help: ArgumentHelp(
            "Render the header rows of the sections in this file ({\"id\",\"type\",\"header\":{...}} objects, as a section request declares them), before the items.",
            valueName: "path"))
    var section: String?

    @OptionGroup var loading: PluginLoadOptions

    func run() throws {
        try reportingErrors {
            let sections =
                try section.map { path throws(RowCastClientError) in
                    try Self.objects(from: path, option: "--section", member: "section")
                } ?? []
            let itemSource = item ?? (section == nil ? "-" : nil)
            let items =
                try itemSource.map { path throws(RowCastClientError) in
                    try Self.objects(from: path, option: "--item", member: "item")
                } ?? []
            let plugin = try loading.load(file)
            var failed = false
            func report(_ error: RowCastError) {
                failed = true
                Output.error(
                    RowCastClientError(
                        code: error.code.rawValue, message: error.message, field: error.field, id: error.id))
            }
            for (offset, section) in sections.enumerated() {
                switch plugin.renderHeader(section, context: "section \(offset + 1)") {
                case .success(let row): Output.line(String(decoding: row, as: UTF8.self))
                case .failure(let error): report(error)
                }
            }
            for (offset, item) in items.enumerated() {
                switch plugin.renderItem(item, context: "item \(offset + 1)") {
                case .success(let row): Output.line(String(decoding: row.bytes, as: UTF8.self))
                case .failure(let error): report(error)
                }
            }
            if failed { throw ExitCode.failure }
        }
    }

    /// The objects in the file at `path` (`-`: standard input): bare objects, or requests
    /// whose `member` is taken (`upsert` requests for items, `section` requests for sections).
    static func objects(from path: String, option: String, member: String) throws(RowCastClientError) -> [[UInt8]] {
        let source = path == "-" ? "stdin" : path
        // Bare objects become upserts of "item" into the default feed.
        let reader = RequestReader(source: source, defaultFeed: "render")
        return try reader.requests(from: try InputText.read(path, option: option)).enumerated().map {
            (offset, request) throws(RowCastClientError) in
            let op = request.objectValue?["op"]?.stringValue
            let taken =
                op == "upsert" ? request.objectValue?["item"] : op == member ? request.objectValue?[member] : nil
            guard let taken else {
                throw RowCastClientError(
                    code: "invalid_request",
                    message:
                        "\(source) element \(offset + 1): not a \(member) (give \(member) objects, or \(member == "item" ? "upsert" : member) requests)"
                )
            }
            return taken.serialized()
        }
    }
}
