import RowCastJSON
import RowCastWire

/// A reset sent in parts (docs/PROTOCOL.md, "Resets in parts"): `reset_begin` names it,
/// each `reset_append` renders one part into it, and `reset_commit` replaces the feed with
/// all of it at once. Nothing is visible, stored or published before the commit; a staged
/// reset that gets no part for ``Engine/stagedResetLifetime`` is dropped.
struct StagedReset {
    /// The feed it will replace.
    let feed: String
    /// The part numbers received (a part sent again is applied once).
    var parts: Set<Int> = []
    /// Everything received, rendered.
    var contents = ResetContents()
    /// When it was begun or last given a part.
    var lastTouched: ContinuousClock.Instant
}

extension Engine {
    /// How long a staged reset waits for its next part before it is dropped.
    static let stagedResetLifetime = Duration.seconds(300)
    /// The most staged resets at once (each can hold a feed's worth of items).
    static let maximumStagedResets = 4

    /// Answers `reset_begin` and `reset_append`; the reply's members.
    func stage(_ request: Request, publications: inout [Publication]) throws(RowCastError) -> JSONObject {
        let name = request.feed!
        let now = ContinuousClock.now
        stagedResets = stagedResets.filter { now - $0.value.lastTouched < Self.stagedResetLifetime }
        switch request.operation {
        case .resetBegin:
            try checkFeedLimit(creating: name, op: request.op)
            guard stagedResets.count < Self.maximumStagedResets else {
                throw RowCastError(
                    .limitExceeded,
                    "reset_begin: \(Self.maximumStagedResets) resets in parts are under way already; commit one, or wait until an abandoned one expires (\(Self.stagedResetLifetime.components.seconds) s after its last part)",
                    feed: name, limit: "reset_in_parts")
            }
            let token = Self.randomEpoch()
            stagedResets[token] = StagedReset(feed: name, lastTouched: now)
            return [
                "feed": .string(name), "reset": .string(token),
                "expiresAfterMs": .number(Double(Self.stagedResetLifetime.components.seconds * 1000)),
            ]
        case .resetAppend(let token, let part, let items, let sections):
            _ = try stagedReset(token, feed: name, op: request.op)
            // Taken out of the table while it grows, so that adding to it does not copy what
            // it holds (a million items); always put back, changed or not.
            var staged = stagedResets.removeValue(forKey: token)!
            defer { stagedResets[token] = staged }
            staged.lastTouched = now
            var members: JSONObject = ["feed": .string(name), "reset": .string(token), "part": .number(Double(part))]
            guard !staged.parts.contains(part) else {
                members.append(key: "duplicate", value: true)
                members.append(key: "items", value: .number(Double(staged.contents.itemCount)))
                return members
            }
            func report(_ error: RowCastError) {
                counters.countRejection(error.code)
                publications.append(ReplyBuilder.errorEvent(error, req: request.req, client: request.client))
            }
            if staged.contents.itemCount + items.count > limits.itemsPerFeed {
                throw RowCastError(
                    .limitExceeded,
                    "reset_append: this part would take reset \(token) past the \(limits.itemsPerFeed) items limits.max_items_per_feed allows; the part was not added",
                    feed: name, limit: "limits.max_items_per_feed")
            }
            if staged.contents.sectionIDs.union(sections.map(\.id)).union(items.map(\.section)).count
                > limits.sectionsPerFeed
            {
                throw RowCastError(
                    .limitExceeded,
                    "reset_append: this part would take reset \(token) past the \(limits.sectionsPerFeed) sections limits.max_sections_per_feed allows; the part was not added",
                    feed: name, limit: "limits.max_sections_per_feed")
            }
            var received = ResetContents()
            try render(sections: sections, items: items, feed: name, into: &received, report: report)
            if staged.contents.bytes + received.bytes > limits.storedBytes {
                throw RowCastError(
                    .limitExceeded,
                    "reset_append: this part would take reset \(token) past the \(limits.storedBytes) bytes limits.max_stored_bytes allows; the part was not added",
                    feed: name, limit: "limits.max_stored_bytes")
            }
            let placed = received.placed
            var duplicates: [JSONValue] = []
            func reportDuplicate(_ error: RowCastError) {
                report(error)
                duplicates.append(error.json)
            }
            for (section, headerRow) in placed.sections
            where staged.contents.add(section: section, headerRow: headerRow) {
                reportDuplicate(
                    RowCastError(
                        .duplicateID,
                        "reset_append: section id \"\(section.id)\" appears more than once; the last one was kept",
                        feed: name, id: section.id))
            }
            for (item, row) in placed.items
            where staged.contents.add(item: item, row: row, quarantined: received.quarantined.contains(item.id)) {
                reportDuplicate(
                    RowCastError(
                        .duplicateID,
                        "reset_append: item id \"\(item.id)\" appears more than once; the last one was kept",
                        feed: name, id: item.id))
            }
            staged.contents.rejected += received.rejected
            staged.contents.duplicates += duplicates
            staged.parts.insert(part)
            members.append(key: "items", value: .number(Double(staged.contents.itemCount)))
            if !received.rejected.isEmpty { members.append(key: "rejected", value: .array(received.rejected)) }
            if !duplicates.isEmpty { members.append(key: "duplicates", value: .array(duplicates)) }
            return members
        default:
            preconditionFailure("stage(_:) takes reset_begin and reset_append")
        }
    }

    /// Applies `reset_commit`: the feed becomes what the staged reset received.
    func commitStagedReset(
        _ token: String, request: Request, publications: inout [Publication]
    ) throws(RowCastError) -> JSONObject {
        let name = request.feed!
        let staged = try stagedReset(token, feed: name, op: request.op)
        try checkFeedLimit(creating: name, op: request.op)
        stagedResets[token] = nil
        return try install(staged.contents, feed: name, request: request, publications: &publications)
    }

    /// The staged reset `token` of `feed`, or `not_found`.
    private func stagedReset(_ token: String, feed name: String, op: String) throws(RowCastError) -> StagedReset {
        guard let staged = stagedResets[token], staged.feed == name else {
            throw RowCastError(
                .notFound,
                "\(op): no reset \"\(token)\" under way for feed \"\(name)\" (it was committed, or it expired \(Self.stagedResetLifetime.components.seconds) s after its last part, or rowcastd restarted); begin again with reset_begin",
                field: "reset", feed: name)
        }
        return staged
    }
}
