import RowCastJSON
import RowCastWire

extension Engine {
    /// Applies one feed operation to its feed, or throws without changing anything.
    /// Returns extra reply members (`warning`, `rejected`).
    func apply(
        _ request: Request, batch: inout BatchState, publications: inout [Publication]
    ) throws(RowCastError) -> JSONObject {
        let name = request.feed!
        var extra = JSONObject()
        switch request.operation {
        case .upsert(let item):
            let rendered: RenderedRow?
            do {
                rendered = try renderItem(item, feed: name)
            } catch let error where Self.isQuarantining(error) {
                // Stored without a row, so it is not lost and a restart does not lose it either.
                try checkUpsertLimits(item, row: nil, feed: name, op: request.op)
                feed(named: name, create: true)!.upsert(item, row: nil)
                batch.touch(name)
                throw error
            }
            let existing = try checkUpsertLimits(item, row: rendered, feed: name, op: request.op)
            let feed = existing ?? feed(named: name, create: true)!
            if rendered == nil {
                let warning = unknownTypeWarning(item, feed: feed, cause: request, publications: &publications)
                extra.append(key: "warning", value: warning.json)
            }
            feed.upsert(item, row: rendered)
            if quarantine.isDamaged(feed: name, id: item.id) { quarantine.remove(feed: name, id: item.id) }

        case .delete(let id):
            if let feed = feeds[name], quarantine.isDamaged(feed: name, id: id) {
                // Not in the feed: only its damaged record goes.
                feed.forgetDamagedRecord(id: id)
                quarantine.remove(feed: name, id: id)
                break
            }
            guard let feed = feeds[name], feed.delete(id: id) else {
                throw RowCastError(
                    .notFound, "delete: feed \"\(name)\" has no item \"\(id)\"", field: "id", feed: name, id: id)
            }
            quarantine.remove(feed: name, id: id)

        case .section(let section):
            try checkFeedLimit(creating: name, op: request.op)
            if let feed = feeds[name] { try checkSectionLimit(adding: section.id, to: feed, op: request.op) }
            let headerRow = try renderHeader(section, feed: name)
            feed(named: name, create: true)!.declareSection(section, headerRow: headerRow)

        case .deleteSection(let id):
            guard let feed = feeds[name], feed.deleteSection(id: id) else {
                throw RowCastError(
                    .notFound, "delete_section: feed \"\(name)\" has no section \"\(id)\"", field: "id", feed: name,
                    id: id)
            }
            quarantine.removeAll(feed: name, keepingDamaged: true) { feed.item($0) == nil }

        case .reset(let items, let sections):
            extra = try reset(
                feed: name, items: items, sections: sections, request: request, publications: &publications)

        case .resetCommit(let token):
            extra = try commitStagedReset(token, request: request, publications: &publications)

        case .drop:
            extra = try drop(feed: name, publications: &publications)

        case .resetBegin, .resetAppend, .snapshot, .since, .status, .plugins, .select, .reload, .quarantine, .events,
            .locate:
            preconditionFailure("queries are not mutations")
        }
        batch.touch(name)
        return extra
    }

    /// Replaces the feed whole, or throws `limit_exceeded` without changing it. Items that
    /// fail to render are reported and left out (those whose plugin crashed or hung are kept
    /// without a row, quarantined).
    private func reset(
        feed name: String, items: [ItemInput], sections: [SectionInput], request: Request,
        publications: inout [Publication]
    ) throws(RowCastError) -> JSONObject {
        func report(_ error: RowCastError) {
            counters.countRejection(error.code)
            publications.append(ReplyBuilder.errorEvent(error, req: request.req, client: request.client))
        }
        var duplicates: [JSONValue] = []
        func reportDuplicate(_ error: RowCastError) {
            report(error)
            duplicates.append(error.json)
        }
        let uniqueSections = lastOccurrences(
            sections, id: \.id, kind: "section", feed: name, report: reportDuplicate)
        let uniqueItems = lastOccurrences(items, id: \.id, kind: "item", feed: name, report: reportDuplicate)
        try checkResetCounts(items: uniqueItems, sections: uniqueSections, feed: name, op: request.op)
        var contents = ResetContents()
        contents.duplicates = duplicates
        try render(sections: uniqueSections, items: uniqueItems, feed: name, into: &contents, report: report)
        return try install(contents, feed: name, request: request, publications: &publications)
    }

    /// Renders sections and items into `contents`; those that do not render are reported and
    /// listed in its `rejected` (an item whose plugin crashed or hung is kept, without a row).
    /// One whose plugin is paused (`plugin_unavailable`) refuses the whole reset or part: left
    /// out, its item would be deleted from the feed.
    func render(
        sections: [SectionInput], items: [ItemInput], feed name: String, into contents: inout ResetContents,
        report: (RowCastError) -> Void
    ) throws(RowCastError) {
        func refuse(_ error: RowCastError) -> RowCastError {
            // Items this render quarantined are not stored: they are not listed either.
            let quarantined = contents.quarantined
            let current = feeds[name]
            quarantine.removeAll(feed: name, keepingDamaged: true) { id in
                quarantined.contains(id) && current?.item(id) == nil
            }
            return RowCastError(
                .pluginUnavailable, "\(error.message); nothing of the request was applied", feed: name, id: error.id)
        }
        for section in sections {
            do {
                contents.add(section: section, headerRow: try renderHeader(section, feed: name))
            } catch {
                if error.code == .pluginUnavailable { throw refuse(error) }
                report(error)
                contents.rejected.append(error.json)
                contents.add(section: section, headerRow: nil)
            }
        }
        for item in items {
            do {
                contents.add(item: item, row: try renderItem(item, feed: name))
            } catch {
                if error.code == .pluginUnavailable { throw refuse(error) }
                report(error)
                contents.rejected.append(error.json)
                if Self.isQuarantining(error) { contents.add(item: item, row: nil, quarantined: true) }
            }
        }
    }

    /// Replaces the feed with `contents`, or throws `limit_exceeded` (stored bytes) without
    /// changing it. Returns the reply's extra members (`warning`, `rejected`, `duplicates`).
    func install(
        _ contents: ResetContents, feed name: String, request: Request, publications: inout [Publication]
    ) throws(RowCastError) -> JSONObject {
        let quarantined = contents.quarantined
        do {
            try checkStoredBytes(
                adding: contents.bytes - (feeds[name]?.storedBytes ?? 0), feed: name, id: nil, op: request.op)
        } catch {
            // Items this reset quarantined but did not store are not listed.
            let current = feeds[name]
            quarantine.removeAll(feed: name, keepingDamaged: true) { id in
                quarantined.contains(id) && current?.item(id) == nil
            }
            throw error
        }
        let feed = feed(named: name, create: true)!
        quarantine.removeAll(feed: name) { !quarantined.contains($0) }
        let placed = contents.placed
        var warning: JSONValue?
        for (item, row) in placed.items where row == nil && !quarantined.contains(item.id) {
            let unknown = unknownTypeWarning(item, feed: feed, cause: request, publications: &publications)
            if warning == nil { warning = unknown.json }
        }
        feed.reset(sections: placed.sections, items: placed.items)
        var extra = JSONObject()
        if let warning { extra.append(key: "warning", value: warning) }
        if !contents.rejected.isEmpty { extra.append(key: "rejected", value: .array(contents.rejected)) }
        if !contents.duplicates.isEmpty { extra.append(key: "duplicates", value: .array(contents.duplicates)) }
        return extra
    }

    /// The elements whose id does not appear again later, in order; each earlier duplicate is
    /// reported as `duplicate_id`.
    private func lastOccurrences<Element>(
        _ elements: [Element], id: KeyPath<Element, String>, kind: String, feed: String, report: (RowCastError) -> Void
    ) -> [Element] {
        var lastIndex: [String: Int] = [:]
        lastIndex.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() { lastIndex[element[keyPath: id]] = index }
        guard lastIndex.count < elements.count else { return elements }
        var kept: [Element] = []
        kept.reserveCapacity(lastIndex.count)
        for (index, element) in elements.enumerated() {
            let elementID = element[keyPath: id]
            if lastIndex[elementID] == index {
                kept.append(element)
            } else {
                report(
                    RowCastError(
                        .duplicateID,
                        "reset: \(kind) id \"\(elementID)\" appears more than once; the last one was kept", feed: feed,
                        id: elementID))
            }
        }
        return kept
    }

    /// The `unknown_type` warning for an item that waits for a plugin; published once per
    /// feed and type, with the `req` and `client` of the request that brought the item
    /// (`cause`; nil for an item loaded from the store).
    func unknownTypeWarning(
        _ item: ItemInput, feed: Feed, cause: Request?, publications: inout [Publication]
    ) -> RowCastError {
        let warning = RowCastError(
            .unknownType,
            "no plugin handles item type \"\(item.type)\"; item \"\(item.id)\" is kept and will be rendered when one is loaded",
            field: "item.type", feed: feed.name, id: item.id)
        if feed.reportedUnknownTypes.insert(item.type).inserted {
            logger.warning(
                "no plugin for item type",
                metadata: ["feed": "\(feed.name)", "type": "\(item.type)", "item": "\(item.id)"])
            publications.append(ReplyBuilder.errorEvent(warning, req: cause?.req, client: cause?.client))
        }
        return warning
    }
}
