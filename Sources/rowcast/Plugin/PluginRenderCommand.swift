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
            --item and --section, from standard input; a feed file as `rowcast publish --file` \
            takes it (upsert and section requests) renders whole, each section's header row \
            where its request stands. Each is checked as a publish request's item is, then \
            rendered by the plugin, and its output checked. Each row is printed as one line of \
            JSON, exactly as subscribers receive it (rowcastd adds "id" and "type"); each \
            refused item as one line on standard error, "error: code: message", as the \
            publisher would get it. --section renders section header rows the same way (each \
            is the section's "headerRow" in snapshots and deltas), before the items. The exit \
            status is 1 when any item or section failed.

            Examples:
              rowcast plugin render librowcast-article.so --item item.json
              rowcast plugin render librowcast-recipes.so --item feed.ndjson
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
                    try Self.entries(from: path, option: "--section", takesItems: false)
                } ?? []
            let itemSource = item ?? (section == nil ? "-" : nil)
            let items =
                try itemSource.map { path throws(RowCastClientError) in
                    try Self.entries(from: path, option: "--item", takesItems: true)
                } ?? []
            let plugin = try loading.load(file)
            var failed = false
            func report(_ error: RowCastError) {
                failed = true
                Output.error(
                    RowCastClientError(
                        code: error.code.rawValue, message: Self.standalone(error), field: error.field, id: error.id))
            }
            var sectionCount = 0
            var itemCount = 0
            for entry in sections + items {
                switch entry {
                case .section(let section):
                    sectionCount += 1
                    switch plugin.renderHeader(section, context: "section \(sectionCount)") {
                    case .success(let row): Output.line(String(decoding: row, as: UTF8.self))
                    case .failure(let error): report(error)
                    }
                case .item(let item):
                    itemCount += 1
                    switch plugin.renderItem(item, context: "item \(itemCount)") {
                    case .success(let row): Output.line(String(decoding: row.bytes, as: UTF8.self))
                    case .failure(let error): report(error)
                    }
                }
            }
            if failed { throw ExitCode.failure }
        }
    }

    /// A plugin fault's message as rowcastd words it tells how to get the item out of the
    /// daemon's quarantine; here there is no daemon and nothing is stored.
    static func standalone(_ error: RowCastError) -> String {
        guard error.code == .pluginCrashed || error.code == .pluginTimeout,
            let range = error.message.range(of: "; the item is stored and quarantined")
        else { return error.message }
        return String(error.message[..<range.lowerBound])
            + "; in rowcastd the item would be stored and quarantined (rowcast quarantine lists such items)"
    }

    /// What a file for `plugin render` holds: section header and items to render, in order.
    enum Entry {
        /// A section object (`{"id","type","header"}`), from a bare object or a `section` request.
        case section([UInt8])
        /// An item object, from a bare object or an `upsert` request.
        case item([UInt8])
    }

    /// The entries of the file at `path` (`-`: standard input). With `takesItems` (--item), bare
    /// objects are items, and `upsert` and `section` requests give their item and section, so
    /// a feed file as `rowcast publish --file` takes it renders whole; without (--section),
    /// bare objects and `section` requests are sections.
    static func entries(from path: String, option: String, takesItems: Bool) throws(RowCastClientError) -> [Entry] {
        let source = path == "-" ? "stdin" : path
        let text = try InputText.read(path, option: option)
        if !takesItems {
            // Bare objects become upserts of "item" into the default feed: take them back.
            return try RequestReader(source: source, defaultFeed: "render").requests(from: text).enumerated().map {
                (offset, request) throws(RowCastClientError) in
                let object = request.objectValue
                let op = object?["op"]?.stringValue
                guard let taken = op == "upsert" ? object?["item"] : op == "section" ? object?["section"] : nil else {
                    throw RowCastClientError(
                        code: "invalid_request",
                        message:
                            "\(source) element \(offset + 1): not a section (give section objects, or section requests)"
                    )
                }
                return .section(taken.serialized())
            }
        }
        return try RequestReader(source: source, defaultFeed: "render").requests(from: text).enumerated().map {
            (offset, request) throws(RowCastClientError) in
            let object = request.objectValue
            switch object?["op"]?.stringValue {
            case "upsert"?:
                if let item = object?["item"] { return .item(item.serialized()) }
            case "section"?:
                if let section = object?["section"] { return .section(section.serialized()) }
            default:
                break
            }
            throw RowCastClientError(
                code: "invalid_request",
                message:
                    "\(source) element \(offset + 1): not an item or a section (give item objects, or upsert and section requests)"
            )
        }
    }
}
