import RowCastJSON

/// A section of a feed: its declaration (if any), its rendered header, and how many items
/// name it.
struct StoredSection {
    /// Order, type and header as declared (only the id when created by an item).
    var input: SectionInput
    /// Whether a `section` request declared it; an undeclared section goes with its last item.
    var declared: Bool
    /// When the section first arrived in the feed.
    var arrival: UInt64
    /// The header row the plugin for the section's type rendered, if any.
    var headerRow: [UInt8]?
    /// How many items name this section (with or without a row).
    var memberCount = 0

    /// The key sections are ordered by.
    var orderKey: OrderKey { OrderKey(primary: input.order ?? 0, arrival: arrival) }

    /// The section object of the wire protocol, without its rows:
    /// `{"id","order","type","header","headerRow"}`, missing parts as `null`.
    func encoded() -> [UInt8] {
        var writer = JSONWriter(capacity: 96)
        writer.writeRaw("{\"id\":")
        writer.write(string: input.id)
        writer.writeRaw(",\"order\":")
        if let order = input.order { writer.write(number: order) } else { writer.writeRaw("null") }
        writer.writeRaw(",\"type\":")
        if let type = input.type { writer.write(string: type) } else { writer.writeRaw("null") }
        writer.writeRaw(",\"header\":")
        if let header = input.header { writer.write(.object(header)) } else { writer.writeRaw("null") }
        writer.writeRaw(",\"headerRow\":")
        if let headerRow { writer.writeRaw(headerRow) } else { writer.writeRaw("null") }
        writer.writeRaw("}")
        return writer.bytes
    }
}
