import RowCastKit

extension Engine {
    /// Renders an item from its JSON: its row, nil when no plugin handles its type, or
    /// the plugin's refusal.
    func renderItem(_ item: ItemInput, feed: String) throws(RowCastError) -> RenderedRow? {
        let subject = "item \"\(item.id)\" (type \(item.type))"
        switch renderer.renderItem(type: item.type, input: item.json) {
        case .ok(let output):
            do {
                var row = try RowAssembler.row(id: item.id, type: item.type, output: output)
                if let shared = cellNames[row.cell] {
                    row.cell = shared
                } else if cellNames.count < 10_000 {
                    cellNames[row.cell] = row.cell
                }
                return row
            } catch {
                throw pluginFailure("the plugin for type \(item.type) returned an invalid row for \(subject): \(error)", feed: feed, id: item.id)
            }
        case .rejected(let message, let field, let code):
            throw rejection(message, field: field, code: code, subject: subject, feed: feed, id: item.id)
        case .failed(let message):
            throw pluginFailure("the plugin for type \(item.type) failed on \(subject): \(message)", feed: feed, id: item.id)
        case .noRenderer:
            return nil
        }
    }

    /// Renders a section's header row: nil when the section has no type or no plugin renders it.
    func renderHeader(_ section: SectionInput, feed: String) throws(RowCastError) -> [UInt8]? {
        guard let type = section.type else { return nil }
        var input = JSONObject()
        input.append(key: "id", value: .string(section.id))
        input.append(key: "type", value: .string(type))
        input.append(key: "order", value: section.order.map(JSONValue.number) ?? .null)
        input.append(key: "header", value: section.header.map(JSONValue.object) ?? .object(JSONObject()))
        let subject = "section \"\(section.id)\" (type \(type))"
        switch renderer.renderHeader(type: type, input: JSONValue.object(input).serialized()) {
        case .ok(let output):
            do {
                return try RowAssembler.header(output: output)
            } catch {
                throw pluginFailure("the plugin for section type \(type) returned an invalid header for \(subject): \(error)", feed: feed, id: section.id)
            }
        case .rejected(let message, let field, let code):
            throw rejection(message, field: field, code: code, subject: subject, feed: feed, id: section.id)
        case .failed(let message):
            throw pluginFailure("the plugin for section type \(type) failed on \(subject): \(message)", feed: feed, id: section.id)
        case .noRenderer:
            return nil
        }
    }

    private func rejection(_ message: String, field: String?, code: String?, subject: String, feed: String, id: String) -> RowCastError {
        let known: Set<String> = [ErrorCode.missingField.rawValue, ErrorCode.invalidField.rawValue, ErrorCode.invalidItem.rawValue]
        let errorCode = code.flatMap { known.contains($0) ? ErrorCode(rawValue: $0) : nil } ?? (field == nil ? .invalidItem : .invalidField)
        return RowCastError(errorCode, "\(subject): \(message)", field: field, feed: feed, id: id)
    }

    private func pluginFailure(_ message: String, feed: String, id: String) -> RowCastError {
        logger.error("plugin failure", metadata: ["feed": "\(feed)", "id": "\(id)", "error": "\(message)"])
        return RowCastError(.pluginFailed, message, feed: feed, id: id)
    }

    /// Switches to a new renderer (after a plugin reload): items and headers whose type changed
    /// hands are rendered again, items that waited for a plugin get their rows, and every feed
    /// that visibly changed gets one ordinary delta. Returns what to publish.
    public func replaceRenderer(_ newRenderer: any RowRendering) -> [Publication] {
        let previous = renderer
        renderer = newRenderer
        var publications: [Publication] = []
        var batch = BatchState()
        for (name, feed) in feeds.sorted(by: { $0.key < $1.key }) {
            var changedTypes: [String: Bool] = [:]
            func changed(_ type: String) -> Bool {
                if let known = changedTypes[type] { return known }
                let result = previous.rendererIdentity(forItemType: type) != newRenderer.rendererIdentity(forItemType: type)
                changedTypes[type] = result
                return result
            }
            var touched = false
            for item in Array(feed.allItems) where changed(item.input.type) || item.row == nil {
                let row: RenderedRow?
                do {
                    row = try renderItem(item.input, feed: name)
                } catch {
                    counters.rejected += 1
                    publications.append(ReplyBuilder.errorEvent(error, req: nil, client: nil))
                    row = nil
                }
                if row != item.row {
                    feed.setRow(row, forItem: item.input.id)
                    touched = true
                }
                if row != nil { feed.reportedUnknownTypes.remove(item.input.type) }
            }
            for section in Array(feed.allSections) {
                guard let type = section.input.type,
                      previous.rendererIdentity(forHeaderType: type) != newRenderer.rendererIdentity(forHeaderType: type) else { continue }
                var headerRow: [UInt8]?
                do {
                    headerRow = try renderHeader(section.input, feed: name)
                } catch {
                    counters.rejected += 1
                    publications.append(ReplyBuilder.errorEvent(error, req: nil, client: nil))
                }
                feed.setHeaderRow(headerRow, forSection: section.input.id)
                touched = true
            }
            if touched { batch.touch(name) }
        }
        publishDeltas(for: batch.dirtyFeeds, into: &publications)
        return publications
    }
}
