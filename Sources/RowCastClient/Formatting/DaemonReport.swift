import RowCastJSON

/// Renders `status` and `plugins` replies as readable text.
public enum DaemonReport {
    /// The lines for a `status` reply: version, uptime, endpoints, counters, then one table
    /// row per feed. Numbers get thousands separators; tables fit in `width` when given.
    public static func status(_ reply: JSONValue, width: Int? = nil) -> [String] {
        var lines: [String] = []
        let version = reply["version"]?.stringValue ?? "?"
        let proto = reply["protocol"].map(text) ?? "?"
        let uptime = reply["uptime"]?.numberValue.map(duration) ?? "?"
        let threads = reply["engineThreads"]?.numberValue.map { ", \(Int($0)) engine threads" } ?? ""
        lines.append("rowcastd \(version) (protocol \(proto)), up \(uptime)\(threads)")
        if let endpoints = reply["endpoints"]?.objectValue {
            lines.append("endpoints  " + endpoints.keys.map { "\($0)=\(text(endpoints[$0]))" }.joined(separator: "  "))
        }
        if let counters = reply["counters"]?.objectValue {
            lines.append("counters   " + counters.keys.map { "\($0)=\(number(counters[$0]))" }.joined(separator: "  "))
        }
        if let plugins = reply["plugins"] { lines.append("plugins    \(text(plugins))") }
        if let curve = reply["curve"], curve.objectValue != nil {
            lines.append(
                "curve      server key \(text(curve["serverKey"]))  clients=\(list(curve["clients"]))  refused=\(text(curve["refused"]))"
                    + "  refusedSubscriptions=\(text(curve["refusedSubscriptions"]))"
                    + (reply["cluster"]?.objectValue == nil ? "" : "  admittedNodes=\(text(curve["admittedNodes"]))"))
            for problem in curve["keyProblems"]?.arrayValue ?? [] { lines.append("refused key file: \(text(problem))") }
        }
        if let quarantined = reply["quarantined"] {
            lines.append("quarantined \(text(quarantined)) item(s) (rowcast quarantine lists them)")
        }
        lines += hosts(reply["pluginHosts"], width: width)
        lines += cluster(reply["cluster"], width: width)
        let feeds = reply["feeds"]?.arrayValue ?? []
        if feeds.isEmpty {
            lines.append("no feeds yet")
        } else {
            var table = TextTable(
                headers: ["FEED", "SEQ", "EPOCH", "SECTIONS", "ROWS", "ITEMS", "PENDING"], width: width)
            for feed in feeds {
                table.append(
                    [text(feed["feed"]), number(feed["seq"]), text(feed["epoch"])]
                        + ["sections", "rows", "items", "pending"].map { number(feed[$0]) })
            }
            lines += table.render()
        }
        return lines
    }

    /// The lines for a `plugins` reply: one table row per plugin, then refused files; tables
    /// fit in `width` when given.
    public static func plugins(_ reply: JSONValue, width: Int? = nil) -> [String] {
        let plugins = reply["plugins"]?.arrayValue ?? []
        var lines: [String] = []
        if plugins.isEmpty {
            lines.append("no plugins loaded")
        } else {
            var table = TextTable(headers: ["NAME", "VERSION", "ITEM TYPES", "HEADER TYPES", "FILE"], width: width)
            for plugin in plugins {
                table.append([
                    text(plugin["name"]), text(plugin["version"]), list(plugin["itemTypes"]),
                    list(plugin["headerTypes"]), text(plugin["file"]),
                ])
            }
            lines += table.render()
        }
        for refusal in reply["refusals"]?.arrayValue ?? [] {
            lines.append("refused \(text(refusal["file"])): \(text(refusal["reason"]))")
        }
        lines += cells(reply, width: width)
        if let isolation = reply["isolation"]?.stringValue { lines.append("isolation: \(isolation)") }
        lines += hosts(reply["hosts"], width: width)
        return lines
    }

    /// A table of the declarative cells in use, then the refused cell files.
    static func cells(_ reply: JSONValue, width: Int?) -> [String] {
        var lines: [String] = []
        if let cells = reply["cells"]?.arrayValue, !cells.isEmpty {
            var table = TextTable(headers: ["CELL", "ITEM TYPES", "HEADER TYPES", "FILE"], width: width)
            for cell in cells {
                table.append([
                    text(cell["cell"]), list(cell["types"]), list(cell["section_types"]),
                    "\(text(cell["file"])):\(number(cell["line"]))",
                ])
            }
            lines += table.render()
        }
        for refusal in reply["cell_refusals"]?.arrayValue ?? [] {
            lines.append("refused cell file \(text(refusal))")
        }
        return lines
    }

    /// A table of plugin hosts (none when plugins run inside rowcastd), then each host's
    /// confinement (`confinement of product: seccomp, landlock ABI 7, …` and a line per measure
    /// not in force), then each host's last fault: `last fault of product at 2026-11-25T23:41:07Z: plugin_crashed on item 42: …`
    /// (the time in UTC, from `at`), and a line for each paused plugin.
    static func hosts(_ value: JSONValue?, width: Int?) -> [String] {
        guard let hosts = value?.arrayValue, !hosts.isEmpty else { return [] }
        var table = TextTable(headers: ["HOST", "PID", "STATE", "RESTARTS", "RENDERED", "FAULTS"], width: width)
        for host in hosts {
            table.append([
                text(host["plugin"]), text(host["pid"]), text(host["state"]), number(host["restarts"]),
                number(host["rendered"]), number(host["faults"]),
            ])
        }
        var lines = table.render()
        // Several engine loops run one host of each plugin apiece: each line is said once.
        var said = Set<String>()
        for host in hosts {
            var confinement: [String] = []
            if let measures = host["confinement"]?["measures"]?.arrayValue {
                let names = measures.compactMap(\.stringValue)
                confinement.append(
                    "confinement of \(text(host["plugin"])): \(names.isEmpty ? "none" : names.joined(separator: ", "))")
            }
            for gap in host["confinement"]?["gaps"]?.arrayValue ?? [] {
                confinement.append("\(text(host["plugin"])) not confined by \(text(gap))")
            }
            lines += confinement.filter { said.insert($0).inserted }
        }
        for host in hosts {
            guard let fault = host["lastFault"], fault.objectValue != nil else { continue }
            let at =
                fault["at"]?.numberValue.flatMap { UTCTimestamp.iso8601(unixMilliseconds: $0) }.map { " at \($0)" }
                ?? ""
            lines.append(
                "last fault of \(text(host["plugin"]))\(at): \(text(fault["code"])) on item \(text(fault["item"])): \(text(fault["reason"]))"
            )
        }
        for host in hosts {
            guard let pausedFor = host["pausedFor"]?.numberValue else { continue }
            lines.append(
                "\(text(host["plugin"])) is paused for \(Int(pausedFor)) ms more after faults in a row: its requests are refused with plugin_unavailable"
            )
        }
        return lines
    }

    /// The lines for a `quarantine` reply: one table row per quarantined item, with when it was
    /// quarantined; the table fits in `width` when given.
    public static func quarantine(_ reply: JSONValue, width: Int? = nil) -> [String] {
        var lines: [String] = []
        if let retried = reply["retried"] { lines.append("retried \(text(retried)) item(s)") }
        let items = reply["items"]?.arrayValue ?? []
        guard !items.isEmpty else { return lines + ["no items in quarantine"] }
        var table = TextTable(headers: ["FEED", "ID", "TYPE", "CODE", "PLUGIN", "SINCE (UTC)", "REASON"], width: width)
        for item in items {
            let since = item["at"]?.numberValue.flatMap { UTCTimestamp.iso8601(unixMilliseconds: $0) } ?? "-"
            table.append(
                ["feed", "id", "type", "code", "plugin"].map { text(item[$0]) } + [since, text(item["message"])])
        }
        return lines + table.render()
    }

    /// The lines for a `reload` reply: what was loaded (plugins and cells) and applied, the
    /// feeds re-rendered, what needs a restart, and refused plugin and cell files.
    public static func reload(_ reply: JSONValue) -> [String] {
        let plugins = Int(reply["plugins"]?.numberValue ?? 0)
        var loaded = "\(plugins) plugin\(plugins == 1 ? "" : "s")"
        // A daemon older than the `cells` member says nothing of its cells.
        if let cells = reply["cells"]?.numberValue.map({ Int($0) }) {
            loaded += " and \(cells) cell\(cells == 1 ? "" : "s")"
        }
        var lines = [
            "reloaded \(reply["config"].flatMap(\.stringValue).map { "configuration \($0), " } ?? "")plugins and cells: \(loaded) in use"
        ]
        for plugin in reply["loaded"]?.arrayValue ?? [] {
            lines.append("loaded \(text(plugin["name"])) \(text(plugin["version"])) from \(text(plugin["file"]))")
        }
        for cell in reply["loadedCells"]?.arrayValue ?? [] {
            lines.append("loaded cell \(text(cell["cell"])) from \(text(cell["file"])):\(text(cell["line"]))")
        }
        if let rerendered = reply["rerendered"]?.arrayValue {
            lines.append(
                rerendered.isEmpty
                    ? "no row changed"
                    : "rows rendered again in: "
                        + rerendered.map { "\(text($0["feed"])) (now seq \(number($0["seq"])))" }.joined(
                            separator: ", "))
        }
        if let applied = reply["applied"]?.arrayValue, !applied.isEmpty {
            lines.append("applied: \(list(reply["applied"]))")
        }
        if let restart = reply["restartRequired"]?.arrayValue, !restart.isEmpty {
            lines.append("needs a restart to apply: \(list(reply["restartRequired"]))")
        }
        for refusal in reply["refusals"]?.arrayValue ?? [] {
            lines.append("refused \(text(refusal["file"])): \(text(refusal["reason"]))")
        }
        for refusal in reply["cell_refusals"]?.arrayValue ?? [] {
            lines.append("refused cell file \(text(refusal))")
        }
        return lines
    }

    /// A cluster node's view (`cluster` in `status`): one line about this node, one with the
    /// fencing tokens of the partitions it holds (`token 2: 0-3,7`), then one table row per
    /// live node with its control and publish endpoints, its partitions as ranges, whether its
    /// plugins differ from this node's, and its CURVE (`same` server key, `DIFFER`, or `off`).
    static func cluster(_ value: JSONValue?, width: Int?) -> [String] {
        guard let cluster = value, cluster.objectValue != nil else { return [] }
        let held = cluster["held"]?.arrayValue ?? []
        var lines = [
            "cluster    node \(text(cluster["node"]))  lease \(number(cluster["leaseMs"])) ms  held=\(held.count)"
                + "  unowned=\(text(cluster["unowned"]))  forwarding=\(text(cluster["forwarding"]))"
        ]
        var byToken: [Int: [Int]] = [:]
        for lease in held {
            guard let partition = lease["partition"]?.numberValue, let token = lease["token"]?.numberValue else {
                continue
            }
            byToken[Int(token), default: []].append(Int(partition))
        }
        if !byToken.isEmpty {
            lines.append(
                "tokens     "
                    + byToken.keys.sorted().map { "token \($0): \(ranges(byToken[$0]!))" }.joined(separator: "  "))
        }
        if let failure = cluster["storeFailure"], !failure.isNull { lines.append("cluster store: \(text(failure))") }
        var table = TextTable(
            headers: ["NODE", "CONTROL", "PUBLISH", "HEARTBEAT", "PARTITIONS", "PLUGINS", "CURVE"], width: width)
        for node in cluster["nodes"]?.arrayValue ?? [] {
            let partitions = (node["partitions"]?.arrayValue ?? []).compactMap { $0.numberValue.map(Int.init) }
            table.append([
                text(node["name"]), text(node["control"]), text(node["publish"]),
                "\(number(node["heartbeatAgeMs"])) ms ago",
                "\(partitions.count): \(ranges(partitions))", node["pluginsDiffer"] == true ? "DIFFER" : "same",
                node["serverKeyDiffers"] == true ? "DIFFER" : (node["serverKey"]?.stringValue == nil ? "off" : "same"),
            ])
        }
        return lines + table.render()
    }

    /// `0-3,7,9-10` for [0, 1, 2, 3, 7, 9, 10].
    static func ranges(_ numbers: [Int]) -> String {
        var parts: [String] = []
        var start: Int?
        var previous: Int?
        for number in numbers.sorted() + [Int.max] {
            if let last = previous, number == last + 1 {
                previous = number
                continue
            }
            if let first = start, let last = previous { parts.append(first == last ? "\(first)" : "\(first)-\(last)") }
            start = number
            previous = number
        }
        return parts.isEmpty ? "-" : parts.joined(separator: ",")
    }

    /// "1h 2m 3s" for 3723 seconds.
    static func duration(_ seconds: Double) -> String {
        let total = Int(seconds)
        let (hours, minutes, secs) = (total / 3600, total / 60 % 60, total % 60)
        if hours > 0 { return "\(hours)h \(minutes)m \(secs)s" }
        if minutes > 0 { return "\(minutes)m \(secs)s" }
        return "\(secs)s"
    }

    static func list(_ value: JSONValue?) -> String {
        guard let array = value?.arrayValue, !array.isEmpty else { return "-" }
        return array.map(text).joined(separator: ",")
    }

    /// A number with thousands separators (``TextTable/grouped(_:)``); anything else as ``text(_:)``.
    static func number(_ value: JSONValue?) -> String {
        TextTable.grouped(text(value))
    }

    static func text(_ value: JSONValue?) -> String {
        guard let value else { return "" }
        if value.isNull { return "-" }
        return value.stringValue ?? value.compactText
    }
}
