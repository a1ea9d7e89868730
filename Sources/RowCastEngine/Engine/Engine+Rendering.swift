import Logging
import RowCastJSON
import RowCastPluginHosting
import RowCastWire

extension Engine {
    /// Renders an item from its JSON: its row, nil when no plugin handles its type, or
    /// the plugin's refusal. An item the plugin crashed or hung on is quarantined, and the
    /// error thrown has code `plugin_crashed` or `plugin_timeout` (see ``isQuarantining``);
    /// an item that renders leaves quarantine. An item of a paused plugin is refused with
    /// `plugin_unavailable`.
    func renderItem(_ item: ItemInput, feed: String) throws(RowCastError) -> RenderedRow? {
        try renderItem(
            item, feed: feed,
            outcome: prerenderedOutcome(item.json) ?? renderer.renderItem(type: item.type, input: item.json))
    }

    /// As `renderItem(_:feed:)`, with the renderer's outcome already at hand.
    func renderItem(_ item: ItemInput, feed: String, outcome: RenderOutcome) throws(RowCastError) -> RenderedRow? {
        // Written only for an error: building it for every item cost two percent of the engine.
        var subject: String { "item \"\(item.id)\" (type \(item.type))" }
        if case .faulted(let fault) = outcome, fault.code == .pluginUnavailable {
            // Not sent to the plugin: nothing is known of the item, so it is neither stored nor
            // quarantined, and not logged (the plugin's pause was, once).
            throw RowCastError(.pluginUnavailable, "\(subject): \(fault.reason)", feed: feed, id: item.id)
        }
        if case .faulted(let fault) = outcome {
            quarantine.add(feed: feed, id: item.id, type: item.type, fault: fault)
            let verb = fault.code == .pluginTimeout ? "did not return in time on" : "crashed on"
            let message =
                "plugin \(fault.plugin) (\(fault.file)) \(verb) \(subject): \(fault.reason); the item is stored and quarantined: fix the plugin, reload, then run `rowcast quarantine retry`"
            logger.error(
                "plugin fault; item quarantined",
                metadata: [
                    "feed": "\(feed)", "id": "\(item.id)", "plugin": "\(fault.plugin)", "file": "\(fault.file)",
                    "code": "\(fault.code)", "reason": "\(fault.reason)",
                ])
            throw RowCastError(fault.code, message, feed: feed, id: item.id)
        }
        // A damaged record's entry stays until the item is stored again (the upsert may still
        // be refused after its render).
        if !quarantine.isDamaged(feed: feed, id: item.id) { quarantine.remove(feed: feed, id: item.id) }
        switch outcome {
        case .faulted:
            preconditionFailure("handled above")
        case .ok(let output):
            do {
                return try RowAssembler.row(id: item.id, type: item.type, output: output, cells: &cellNames)
            } catch {
                throw pluginFailure(
                    "the plugin for type \(item.type) returned an invalid row for \(subject): \(error)", feed: feed,
                    id: item.id, plugin: plugin(forItemType: item.type))
            }
        case .rejected(let message, let field, let code):
            throw rejection(message, field: field, code: code, subject: subject, feed: feed, id: item.id)
        case .failed(let message):
            throw pluginFailure(
                "the plugin for type \(item.type) failed on \(subject): \(message)", feed: feed, id: item.id,
                plugin: plugin(forItemType: item.type))
        case .noRenderer:
            return nil
        }
    }

    /// The render job of a section's header: nil when the section has no type.
    static func headerJob(_ section: SectionInput) -> RenderJob? {
        guard let type = section.type else { return nil }
        var input = JSONObject()
        input.append(key: "id", value: .string(section.id))
        input.append(key: "type", value: .string(type))
        input.append(key: "order", value: section.order.map { JSONValue.number($0) } ?? .null)
        input.append(key: "header", value: section.header.map(JSONValue.object) ?? .object(JSONObject()))
        return RenderJob(kind: .renderHeader, type: type, input: JSONValue.object(input).serialized())
    }

    /// Renders a section's header row: nil when the section has no type or no plugin renders it.
    func renderHeader(_ section: SectionInput, feed: String) throws(RowCastError) -> [UInt8]? {
        guard let job = Self.headerJob(section) else { return nil }
        let type = job.type
        let subject = "section \"\(section.id)\" (type \(type))"
        switch prerenderedHeaderOutcome(job.input) ?? renderer.renderHeader(type: type, input: job.input) {
        case .faulted(let fault):
            throw pluginFailure(
                "the plugin for section type \(type) failed on \(subject): \(fault.reason)", feed: feed, id: section.id,
                plugin: (fault.plugin, fault.file), code: fault.code)
        case .ok(let output):
            do {
                return try RowAssembler.header(output: output)
            } catch {
                throw pluginFailure(
                    "the plugin for section type \(type) returned an invalid header for \(subject): \(error)",
                    feed: feed, id: section.id, plugin: plugin(forHeaderType: type))
            }
        case .rejected(let message, let field, let code):
            throw rejection(message, field: field, code: code, subject: subject, feed: feed, id: section.id)
        case .failed(let message):
            throw pluginFailure(
                "the plugin for section type \(type) failed on \(subject): \(message)", feed: feed, id: section.id,
                plugin: plugin(forHeaderType: type))
        case .noRenderer:
            return nil
        }
    }

    private func rejection(
        _ message: String, field: String?, code: String?, subject: String, feed: String, id: String
    ) -> RowCastError {
        let known: Set<String> = [
            ErrorCode.missingField.rawValue, ErrorCode.invalidField.rawValue, ErrorCode.invalidItem.rawValue,
        ]
        let errorCode =
            code.flatMap { known.contains($0) ? ErrorCode(rawValue: $0) : nil }
            ?? (field == nil ? .invalidItem : .invalidField)
        return RowCastError(errorCode, "\(subject): \(message)", field: field, feed: feed, id: id)
    }

    /// Logs a plugin's failure on item or section `id` of `feed` (naming the plugin and its
    /// file, as a fault that quarantines does) and returns the error to throw.
    private func pluginFailure(
        _ message: String, feed: String, id: String, plugin: (name: String, file: String)?,
        code: ErrorCode = .pluginFailed
    ) -> RowCastError {
        var metadata: Logger.Metadata = ["feed": "\(feed)", "id": "\(id)", "error": "\(message)"]
        if let plugin {
            metadata["plugin"] = "\(plugin.name)"
            metadata["file"] = "\(plugin.file)"
        }
        logger.error("plugin failure", metadata: metadata)
        return RowCastError(code, message, feed: feed, id: id)
    }

    /// The name and file of the plugin that renders item type `type`, for a log line: nil when
    /// none does (a declarative cell). Types are unique among the loaded plugins.
    private func plugin(forItemType type: String) -> (name: String, file: String)? {
        renderer.loadedPlugins.first { $0.itemTypes.contains(type) }.map { ($0.name, $0.file) }
    }

    /// As ``plugin(forItemType:)``, for a section type.
    private func plugin(forHeaderType type: String) -> (name: String, file: String)? {
        renderer.loadedPlugins.first { $0.headerTypes.contains(type) }.map { ($0.name, $0.file) }
    }

    /// Renders, in one call to the renderer, every item and section header the decoded batch
    /// will apply, so that a renderer in other processes makes one round trip per plugin.
    /// A retry the ledger answers applies nothing, so it renders nothing: rendered anyway, an
    /// item that hangs its plugin cost the deadline again on every retry, and a client whose
    /// retry timeout is the deadline (`rowcast publish`'s 1 s) never got its answer.
    /// Returns, for each message, how many jobs it and those before it sent, and their stream.
    func prerender(
        _ batch: [RequestDecoder.Outcome], of messages: [IncomingMessage]
    ) -> (jobsThrough: [Int], stream: (any RenderStream)?) {
        var jobs: [RenderJob] = []
        var jobsThrough: [Int] = []
        jobsThrough.reserveCapacity(messages.count)
        for (message, outcome) in zip(messages, batch) {
            defer { jobsThrough.append(jobs.count) }
            guard case .request(let request) = outcome, !isAnsweredRetry(request, from: message.origin),
                refusedWrites == nil || !request.writesState
            else { continue }
            switch request.operation {
            case .upsert(let item):
                jobs.append(RenderJob(kind: .renderItem, type: item.type, input: item.json))
            case .section(let section):
                if let job = Self.headerJob(section) { jobs.append(job) }
            case .reset(let items, let sections), .resetAppend(_, _, let items, let sections):
                jobs += sections.compactMap(Self.headerJob)
                jobs += items.map { RenderJob(kind: .renderItem, type: $0.type, input: $0.json) }
            default:
                continue
            }
        }
        return (jobsThrough, prerender(jobs))
    }

    /// Sends `jobs` to the renderer in one call; `renderItem` and `renderHeader` take their
    /// outcomes as they arrive. Returns their stream (nil when there are none).
    @discardableResult
    func prerender(_ jobs: [RenderJob]) -> (any RenderStream)? {
        guard !jobs.isEmpty else { return nil }
        let stream = renderer.startRendering(jobs)
        renderStreams.append(stream)
        prerendered.beginGroup()
        for (index, job) in jobs.enumerated() {
            let prerenderedJob = PrerenderedJob(stream: stream, index: index, input: job.input)
            if job.kind == .renderItem, let identity = JobInputIdentity(job.input) {
                prerendered.append(prerenderedJob, for: identity)
            } else {
                // The first job of equal bytes serves them all (the same render): a later
                // batch's job, perhaps queued behind a hanging host, must not replace the one a
                // carried message was found ready with.
                let key = JobInputKey(bytes: job.input)
                if prerenderedHeaders[key] == nil { prerenderedHeaders[key] = prerenderedJob }
            }
        }
        return stream
    }

    /// The outcome of the prerendered item job whose input is `input` (the same array),
    /// waiting for it if needed.
    func prerenderedOutcome(_ input: [UInt8]) -> RenderOutcome? {
        guard let identity = JobInputIdentity(input), let job = prerendered.job(for: identity) else { return nil }
        return job.stream.outcome(at: job.index)
    }

    /// The outcome of the prerendered header job with input `input` (equal bytes).
    func prerenderedHeaderOutcome(_ input: [UInt8]) -> RenderOutcome? {
        guard !prerenderedHeaders.isEmpty, let job = prerenderedHeaders[JobInputKey(bytes: input)] else { return nil }
        return job.stream.outcome(at: job.index)
    }

    /// Waits for what is still due on the render streams and forgets the prerendered jobs.
    /// While messages are carried from a parked batch, it keeps their streams and jobs without
    /// waiting: the carried messages find their outcomes there, and a stream may wait on a
    /// hanging host. (Each job holds its input, so no other input can take its identity.)
    func finishPrerendered() {
        guard carried.isEmpty else {
            // Only the carried messages' streams are kept, with their jobs: every other stream's
            // messages were applied, so its jobs are answered. (Kept whole, a plugin slower than
            // the loop's wait, under steady load, kept every stream and job for good.)
            let kept = Set(carried.compactMap { $0.stream.map(ObjectIdentifier.init) })
            renderStreams.removeAll { !kept.contains(ObjectIdentifier($0)) }
            prerendered.keep { kept.contains(ObjectIdentifier($0.stream)) }
            prerenderedHeaders = prerenderedHeaders.filter { kept.contains(ObjectIdentifier($0.value.stream)) }
            return
        }
        for stream in renderStreams { stream.finish() }
        renderStreams.removeAll(keepingCapacity: true)
        prerendered.removeAll()
        prerenderedHeaders.removeAll(keepingCapacity: true)
    }

    /// `prerender(_:)` when the renderer works in batches; nothing otherwise.
    func prerenderIfBatching(_ jobs: [RenderJob]) {
        if renderer.rendersInBatches { prerender(jobs) }
    }

    /// Whether `error` means the item was quarantined (stored without a row) rather than refused.
    static func isQuarantining(_ error: RowCastError) -> Bool {
        error.code == .pluginCrashed || error.code == .pluginTimeout
    }

    /// Renders the quarantined items again (all, those of `feed`, or item `id` of `feed`);
    /// those that render get their rows back. Returns the `quarantine` reply members.
    func retryQuarantine(
        feed: String?, id: String?, batch: inout BatchState, publications: inout [Publication]
    ) -> JSONObject {
        let keys = quarantine.keys(feed: feed, id: id)
        var items: [(Feed, ItemInput)] = []
        for key in keys where !quarantine.isDamaged(feed: key.feed, id: key.id) {
            guard let stored = feeds[key.feed], let item = stored.item(key.id) else {
                quarantine.remove(feed: key.feed, id: key.id)
                continue
            }
            items.append((stored, item.input))
        }
        prerenderIfBatching(items.map { RenderJob(kind: .renderItem, type: $0.1.type, input: $0.1.json) })
        for (stored, input) in items {
            let row: RenderedRow?
            do {
                row = try renderItem(input, feed: stored.name)
            } catch {
                publications.append(ReplyBuilder.errorEvent(error, req: nil, client: nil))
                continue
            }
            stored.setRow(row, forItem: input.id)
            batch.touch(stored.name)
        }
        var members = JSONObject()
        members.append(key: "retried", value: .number(Double(items.count)))
        members.append(key: "items", value: quarantine.json)
        return members
    }

    /// Switches to a new renderer (after a plugin reload): items and headers whose type changed
    /// hands are rendered again, items that waited for a plugin get their rows, and every feed
    /// that visibly changed gets one ordinary delta; quarantined items are left as they are.
    /// Returns what to publish.
    public func replaceRenderer(_ newRenderer: any RowRendering) -> [Publication] {
        let previous = renderer
        renderer = newRenderer
        var publications: [Publication] = []
        var batch = BatchState()
        var keptForPause = 0
        for (name, feed) in feeds.sorted(by: { $0.key < $1.key }) {
            var changedTypes: [String: Bool] = [:]
            func changed(_ type: String) -> Bool {
                if let known = changedTypes[type] { return known }
                let result =
                    previous.rendererIdentity(forItemType: type) != newRenderer.rendererIdentity(forItemType: type)
                changedTypes[type] = result
                return result
            }
            var touched = false
            // A quarantined item is never rendered here: only `rowcast quarantine retry` does.
            let stale = Array(feed.allItems).filter { item in
                (changed(item.input.type) || item.row == nil) && !quarantine.contains(feed: name, id: item.input.id)
            }
            for chunk in Self.renderChunks(stale.count) {
                prerenderIfBatching(
                    stale[chunk].map { RenderJob(kind: .renderItem, type: $0.input.type, input: $0.input.json) })
                for item in stale[chunk] {
                    let row: RenderedRow?
                    do {
                        row = try renderItem(item.input, feed: name)
                    } catch  where error.code == .pluginUnavailable {
                        // Its plugin is paused: the item keeps the row it has (logged once below).
                        keptForPause += 1
                        continue
                    } catch {
                        counters.countRejection(error.code)
                        publications.append(ReplyBuilder.errorEvent(error, req: nil, client: nil))
                        row = nil
                    }
                    if row != item.row {
                        feed.setRow(row, forItem: item.input.id)
                        touched = true
                    }
                    if row != nil { feed.reportedUnknownTypes.remove(item.input.type) }
                }
                finishPrerendered()
            }
            for section in Array(feed.allSections) {
                guard let type = section.input.type,
                    previous.rendererIdentity(forHeaderType: type) != newRenderer.rendererIdentity(forHeaderType: type)
                else { continue }
                var headerRow: [UInt8]?
                do {
                    headerRow = try renderHeader(section.input, feed: name)
                } catch {
                    counters.countRejection(error.code)
                    publications.append(ReplyBuilder.errorEvent(error, req: nil, client: nil))
                }
                feed.setHeaderRow(headerRow, forSection: section.input.id)
                touched = true
            }
            if touched { batch.touch(name) }
        }
        if keptForPause > 0 {
            logger.warning(
                "items kept their rows: their plugin is paused after faults in a row; reload again once it is over to render them",
                metadata: ["items": "\(keptForPause)"])
        }
        publishDeltas(for: batch.dirtyFeeds, into: &publications)
        return publications
    }

    /// The items of a long run that go to the renderer in one call (start-up, reload).
    static let renderChunkSize = 512

    /// `0..<count` cut into ranges of at most ``renderChunkSize``.
    static func renderChunks(_ count: Int) -> [Range<Int>] {
        stride(from: 0, to: count, by: renderChunkSize).map { $0..<min($0 + renderChunkSize, count) }
    }
}
