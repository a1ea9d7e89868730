import RowCastJSON

/// What a reset will put in place, rendered: its sections and items in placement order (a
/// later copy of an id replaces an earlier one at the later place), the bytes they hold, the
/// items quarantined while rendering them, and the errors of those rejected.
struct ResetContents {
    private(set) var sections: [(SectionInput, [UInt8]?)?] = []
    private var sectionPlaces: [String: Int] = [:]
    private(set) var items: [(ItemInput, RenderedRow?)?] = []
    private var itemPlaces: [String: Int] = [:]
    /// Items kept without a row because their plugin crashed or hung on them.
    private(set) var quarantined: Set<String> = []
    /// Bytes of item JSON plus rows held.
    private(set) var bytes = 0
    /// The error objects of items and headers that did not render.
    var rejected: [JSONValue] = []
    /// The `duplicate_id` error objects of ids listed more than once (the last copy is kept).
    var duplicates: [JSONValue] = []

    /// How many distinct items it holds.
    var itemCount: Int { itemPlaces.count }
    /// Every section id it declares or an item names (or named: an id stays when the items
    /// that named it are replaced, so the count errs on the safe side), kept as it grows so
    /// that checking a part of a million-item reset does not walk every item.
    private(set) var sectionIDs: Set<String> = []

    /// Adds a section; true when it replaced an earlier copy of its id.
    @discardableResult
    mutating func add(section: SectionInput, headerRow: [UInt8]?) -> Bool {
        let replaced = sectionPlaces[section.id].map { sections[$0] = nil } != nil
        sectionPlaces[section.id] = sections.count
        sections.append((section, headerRow))
        sectionIDs.insert(section.id)
        return replaced
    }

    /// Adds an item (`quarantined`: kept without a row after a crash or hang); true when it
    /// replaced an earlier copy of its id.
    @discardableResult
    mutating func add(item: ItemInput, row: RenderedRow?, quarantined isQuarantined: Bool = false) -> Bool {
        var replaced = false
        if let place = itemPlaces[item.id], let (old, oldRow) = items[place] {
            bytes -= Feed.bytes(of: old, row: oldRow)
            quarantined.remove(item.id)
            items[place] = nil
            replaced = true
        }
        itemPlaces[item.id] = items.count
        items.append((item, row))
        sectionIDs.insert(item.section)
        bytes += Feed.bytes(of: item, row: row)
        if isQuarantined { quarantined.insert(item.id) }
        return replaced
    }

    /// The sections and items to install, in order.
    var placed: (sections: [(SectionInput, [UInt8]?)], items: [(ItemInput, RenderedRow?)]) {
        (sections.compactMap { $0 }, items.compactMap { $0 })
    }
}
