import Foundation
import RowCastJSON
import RowCastTesting
import ZeroMQ

/// Issue 19's stable cost figure: instructions per item, counted by `valgrind
/// --tool=callgrind` (repeatable on a noisy machine, unlike seconds), for the engine path
/// (`Engine.process` with the real plugins, in this process) and for the daemon (a release
/// rowcastd with the plugins in process, every thread, from start to stop). Each is run at two
/// workload sizes and the figure is the difference divided by the extra items, so start-up and
/// shutdown cancel out. Takes about a minute.
struct InstructionsBenchmark {
    /// The two workload sizes (`ROWCAST_BENCH_INSTRUCTION_ITEMS`: the larger; the smaller is a third of it).
    var largeItems = Int(ProcessInfo.processInfo.environment["ROWCAST_BENCH_INSTRUCTION_ITEMS"] ?? "") ?? 6_000
    var results = JSONObject()

    mutating func run() throws -> String {
        guard
            let valgrind = ["/usr/bin/valgrind", "/usr/local/bin/valgrind"].first(where: {
                FileManager.default.isExecutableFile(atPath: $0)
            })
        else {
            throw BenchFailure(
                "instructions: valgrind is not installed (`make bench` installs it; apt-get install valgrind)")
        }
        let launcher = [valgrind, "--tool=callgrind", "--callgrind-out-file=" + Self.profileFile]
        // valgrind 3.19 cannot read the DWARF 5 of this toolchain's builds and gives up: it runs
        // copies without their debug information (the instructions are the same).
        let binaries = FileManager.default.temporaryDirectory.appendingPathComponent(
            "rowcast-bench-ir-\(UUID().uuidString)"
        ).path
        let paths = try Self.selectedPaths()
        try Self.strippedCopies(of: Self.files(for: paths), into: binaries)
        defer { try? FileManager.default.removeItem(atPath: binaries) }
        let smallItems = largeItems / 3
        var table = BenchTable(
            title:
                "Instructions per item (valgrind --tool=callgrind, Ir; the difference between \(smallItems.formatted) and \(largeItems.formatted) car items)",
            header: [
                "path", "at \(smallItems.formatted) items", "at \(largeItems.formatted) items", "instructions per item",
            ])
        func counts(
            _ key: String, sizes: (small: Int, large: Int)? = nil, _ count: (Int) throws -> Double
        ) throws -> Counts? {
            guard paths.contains(key) else { return nil }
            let (small, large) = sizes ?? (smallItems, largeItems)
            return try Counts(small: small, large: large, smallCount: count(small), largeCount: count(large))
        }
        // Only inside the commit: the items' making is left out.
        let commitsOnly = launcher + ["--collect-atstart=no", "--toggle-collect=*StoreCommitOnly*commitForCount*"]
        let measured: [(String, String, Counts?)] = [
            (
                "Engine.process, plugins in process", "engine",
                try counts("engine") { try Self.engine(items: $0, launcher: launcher, binaries: binaries) }
            ),
            (
                "Engine.process, each item inserted then updated (another price), plugins in process", "engineUpdates",
                try counts("engineUpdates") {
                    try Self.engine(items: $0, launcher: launcher, binaries: binaries, mode: "--engine-updates-only")
                }
            ),
            (
                "rowcastd end to end, plugins in process, store on", "daemon",
                try counts("daemon") {
                    try Self.daemon(items: $0, launcher: launcher, binaries: binaries, hosted: false)
                }
            ),
            (
                "rowcastd end to end, plugins in their hosts (not counted), store on", "daemonHosted",
                try counts("daemonHosted") {
                    try Self.daemon(items: $0, launcher: launcher, binaries: binaries, hosted: true)
                }
            ),
            (
                "rowcastd, a trickle: each item alone (sent once the row before it arrived), plugins in their hosts (not counted)",
                "trickle",
                try counts("trickle", sizes: Self.trickleItems) {
                    try Self.daemon(items: $0, launcher: launcher, binaries: binaries, hosted: true, oneAtATime: true)
                }
            ),
            (
                "the plugin hosts of that run (both plugins)", "hosts",
                try counts("hosts") { try Self.hosts(items: $0, launcher: launcher, binaries: binaries) }
            ),
            (
                "the product plugin's render_item alone (the SDK: item in, row out)", "sdkRender",
                try counts("sdkRender") {
                    try Self.engine(items: $0, launcher: launcher, binaries: binaries, mode: "--sdk-only")
                }
            ),
            (
                "SQLiteFeedStore.commit alone, 64 items per commit (the commit thread's part)", "storeCommit",
                try counts("storeCommit") {
                    try Self.engine(items: $0, launcher: commitsOnly, binaries: binaries, mode: "--store-only")
                }
            ),
        ]
        for case (let name, let key, let counts?) in measured {
            let perItem = (counts.largeCount - counts.smallCount) / Double(counts.large - counts.small)
            let sized = counts.small == smallItems ? name : "\(name) (\(counts.small) and \(counts.large) items)"
            table.add([
                sized, Int(counts.smallCount).formatted, Int(counts.largeCount).formatted, Int(perItem).formatted,
            ])
            results[key] = [
                "smallItems": .number(Double(counts.small)), "largeItems": .number(Double(counts.large)),
                "smallInstructions": .number(counts.smallCount), "largeInstructions": .number(counts.largeCount),
                "instructionsPerItem": .number(perItem),
            ]
        }
        table.footnotes.append(
            "the daemon's figures count all its threads (loop, commit, snapshot writer); callgrind does not follow it into plugin hosts, so the second row has the plugins in process, the third counts only rowcastd's side of its hosts, and the fourth sends the items one at a time, each once the row of the one before arrived (every item a batch, a host round trip and a commit of its own: the fixed cost a trickle pays per item), the fifth runs the hosts of the flood under callgrind of their own (rows three and five together are the whole cost with isolation); the sixth calls the product plugin's exported render_item in this process, as a host does, without the channel; the last counts only SQLiteFeedStore.commit (--toggle-collect), with items in commits of 64"
        )
        return table.render()
    }

    /// Every path the workload can count, by its key in bench-results.json.
    static let allPaths = [
        "engine", "engineUpdates", "daemon", "daemonHosted", "trickle", "hosts", "sdkRender", "storeCommit",
    ]

    /// The two runs of the `trickle` path: items sent one at a time take callgrind's whole
    /// start-to-row time each, so fewer than the flood's.
    static let trickleItems = (small: 30, large: 90)

    /// One path's two runs: their item counts and instruction totals.
    struct Counts {
        var small: Int
        var large: Int
        var smallCount: Double
        var largeCount: Double
    }

    /// The paths `ROWCAST_BENCH_INSTRUCTION_PATHS` names (comma-separated keys), or every path.
    /// The CI guard (`make bench-guard`) counts only the paths whose counts repeat exactly.
    static func selectedPaths() throws -> Set<String> {
        guard let list = ProcessInfo.processInfo.environment["ROWCAST_BENCH_INSTRUCTION_PATHS"], !list.isEmpty else {
            return Set(allPaths)
        }
        let paths = Set(list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        let unknown = paths.subtracting(allPaths)
        guard unknown.isEmpty else {
            throw BenchFailure(
                "instructions: ROWCAST_BENCH_INSTRUCTION_PATHS names unknown paths \(unknown.sorted()); known: \(allPaths.joined(separator: ", "))"
            )
        }
        return paths
    }

    /// The files of the release build that `paths` run, by name: rowcast-bench for every path
    /// (each runs in a mode of its own), the plugins for the paths that render with them (the
    /// engine's and the daemon's), the plugin host for the paths with plugins in their hosts. No
    /// path runs the rowcastd executable (the daemon's run in `--daemon-only`), so the CI guard
    /// (`make bench-guard`, Makefile's `GUARD_PRODUCTS`) builds neither it nor the web gateway's
    /// JWT and crypto libraries it links.
    static func files(for paths: Set<String>) -> [String] {
        var names = ["rowcast-bench"]
        if !paths.isDisjoint(with: ["engine", "engineUpdates", "daemon", "daemonHosted", "trickle", "hosts"]) {
            names += ["librowcast-product.so", "librowcast-advertising.so"]
        }
        if !paths.isDisjoint(with: ["daemonHosted", "trickle", "hosts"]) { names.append("rowcast-plugin-host") }
        return names
    }

    /// Copies the files `names` of the release build (`files(for:)`) into `directory` without
    /// debug information; a file that is not built fails with its name.
    static func strippedCopies(of names: [String], into directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let source = BenchDaemon.productsDirectory
        for name in names {
            guard FileManager.default.fileExists(atPath: source + "/" + name) else {
                throw BenchFailure(
                    "instructions: \(source)/\(name) is not built (swift build -c release builds every product)")
            }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/objcopy")
            process.arguments = ["--strip-debug", source + "/" + name, directory + "/" + name]
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                throw BenchFailure("instructions: objcopy --strip-debug \(name) failed")
            }
        }
    }

    /// Instructions of `rowcast-bench --engine-only items` (or another `mode`, `--sdk-only`)
    /// under callgrind.
    static func engine(
        items: Int, launcher: [String], binaries: String, mode: String = "--engine-only"
    ) throws -> Double {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: launcher[0])
        process.arguments = Array(launcher.dropFirst()) + [binaries + "/rowcast-bench", mode, String(items)]
        process.environment = deterministic
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0, let count = collected(in: text) else {
            throw BenchFailure(
                "instructions: the engine run under callgrind failed (status \(process.terminationStatus)): \(text.suffix(2000))"
            )
        }
        return count
    }

    /// Instructions of rowcastd's daemon (`rowcast-bench --daemon-only` under callgrind) that
    /// takes `items` upserts and publishes their rows, from its start to its clean stop; with
    /// its plugins in their hosts (`hosted`, which callgrind does not follow) or in process;
    /// sent all at once, or `oneAtATime` (each once the row of the one before arrived, after a
    /// pause of `tricklePause` that leaves the daemon idle).
    static func daemon(
        items: Int, launcher: [String], binaries: String, hosted: Bool, hostLauncher: String? = nil,
        oneAtATime: Bool = false, beforeStop: (Int32) throws -> Void = { _ in }
    ) throws -> Double {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent(
            "rowcast-bench-ir-state-\(UUID().uuidString)"
        ).path
        defer { try? FileManager.default.removeItem(atPath: state) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: launcher[0])
        process.arguments =
            Array(launcher.dropFirst()) + [binaries + "/rowcast-bench", "--daemon-only", binaries, state]
        process.environment = deterministic.merging([
            "ROWCAST_BENCH_DAEMON_ISOLATION": hosted ? "process" : "in_process",
            "ROWCAST_BENCH_HOST_LAUNCHER": hostLauncher ?? "",
        ]) { $1 }
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        let collector = ErrorCollector(errors)
        try process.run()
        BenchChildren.add(process.processIdentifier)
        defer {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            BenchChildren.remove(process.processIdentifier)
        }
        var text = ""
        var ready: ReadyLine?
        while ready == nil {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty {
                throw BenchFailure(
                    "instructions: the daemon under callgrind did not start: \(collector.text().suffix(2000))")
            }
            text += String(decoding: data, as: UTF8.self)
            ready = ReadyLine(in: text)
        }
        let context = try Context()
        let subscriber = try BenchSubscriber.live(
            context: context, publish: ready!.publish, topics: [Array("rows.".utf8)], timeoutMilliseconds: 120_000)
        Thread.sleep(forTimeInterval: 1)  // the subscription reaches the daemon
        var rows = 0
        func receiveRows(until count: Int) throws {
            while rows < count {
                guard let frames = try subscriber.receiveMultipart() else {
                    throw BenchFailure("instructions: the daemon stalled at \(rows) of \(items) rows")
                }
                if frames[0].starts(with: Array("rows.".utf8)) { rows += CarFeed.rowCount(in: frames[1]) }
            }
        }
        if oneAtATime {
            let producer = try Socket(context: context, type: .push)
            defer { producer.close() }
            try producer.connect(ready!.ingest)
            for index in 0..<items {
                _ = try producer.send(CarFeed.upsert(index, run: "ir"))
                try receiveRows(until: index + 1)
                Thread.sleep(forTimeInterval: tricklePause)
            }
        } else {
            ThroughputBenchmark.startProducer(
                context: context, endpoint: ready!.ingest, messages: (0..<items).map { CarFeed.upsert($0, run: "ir") })
            try receiveRows(until: items)
        }
        subscriber.close()
        try beforeStop(process.processIdentifier)
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        let summary = collector.text()
        guard let count = collected(in: summary) else {
            throw BenchFailure("instructions: no callgrind total from the daemon: \(summary.suffix(2000))")
        }
        return count
    }

    /// The pause between two items of the `trickle` path, after the row of the first arrived.
    static let tricklePause = 0.02

    /// Instructions of the plugin hosts alone, over the hosted daemon workload: each host is
    /// started through a script that runs it under callgrind, and its total is read from its
    /// profile (the hosts' standard error goes to the daemon's log).
    static func hosts(items: Int, launcher: [String], binaries: String) throws -> Double {
        let profiles = FileManager.default.temporaryDirectory.appendingPathComponent(
            "rowcast-bench-ir-hosts-\(UUID().uuidString)"
        ).path
        // Writable by everyone: a host started by root runs as the unprivileged plugin user.
        try FileManager.default.createDirectory(
            atPath: profiles, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o1777])
        defer { try? FileManager.default.removeItem(atPath: profiles) }
        let script = profiles + "/host-under-callgrind"
        // valgrind creates the profile as it starts, as root; the host then writes it as the
        // plugin user: the file is made writable for everyone first ($$ is the host's pid).
        let profile = profiles + "/host.$$"
        let text =
            "#!/bin/sh\n: > \(profile) && chmod 666 \(profile)\nexec \(launcher[0]) --tool=callgrind --callgrind-out-file=\(profile) \(binaries)/rowcast-plugin-host \"$@\"\n"
        try Data(text.utf8).write(to: URL(fileURLWithPath: script))
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script)
        var total = 0.0
        // rowcastd gives a stopping host a second before it kills it, too little for callgrind
        // to write its profile: the hosts are stopped first (SIGTERM; valgrind writes the
        // profile of a process a signal ends) and their profiles awaited.
        _ = try daemon(items: items, launcher: launcher, binaries: binaries, hosted: true, hostLauncher: script) {
            daemon in
            let hosts = ProcessCPU.childrenSeconds(pid: daemon).keys
            for host in hosts { kill(pid_t(host), SIGTERM) }
            let deadline = ContinuousClock.now + .seconds(60)
            for host in hosts {
                while (try? String(contentsOfFile: profiles + "/host.\(host)", encoding: .utf8))?.contains("\ntotals:")
                    != true
                {
                    guard ContinuousClock.now < deadline else {
                        throw BenchFailure("instructions: plugin host \(host) wrote no profile within 60 s")
                    }
                    Thread.sleep(forTimeInterval: 0.1)
                }
                let profile = try String(contentsOfFile: profiles + "/host.\(host)", encoding: .utf8)
                guard let line = profile.split(separator: "\n").first(where: { $0.hasPrefix("totals:") }),
                    let count = Double(line.split(separator: " ").last ?? "")
                else { throw BenchFailure("instructions: no total in the profile of plugin host \(host)") }
                total += count
                if let kept = ProcessInfo.processInfo.environment["ROWCAST_BENCH_CALLGRIND_DIR"], !kept.isEmpty {
                    try? FileManager.default.copyItem(
                        atPath: profiles + "/host.\(host)", toPath: kept + "/callgrind.out.host.\(host)")
                }
            }
        }
        guard total > 0 else { throw BenchFailure("instructions: no plugin host profile was written") }
        return total
    }

    /// Where callgrind writes its profile: `ROWCAST_BENCH_CALLGRIND_DIR`, when set, keeps one file
    /// per run there (`callgrind.out.PID`, for `callgrind_annotate --inclusive=yes`); otherwise none is kept.
    static var profileFile: String {
        guard let directory = ProcessInfo.processInfo.environment["ROWCAST_BENCH_CALLGRIND_DIR"], !directory.isEmpty
        else { return "/dev/null" }
        return directory + "/callgrind.out.%p"
    }

    /// This environment with Swift's hashing seeded the same in every run: a random seed lays
    /// dictionaries out differently each time, which moves the count by a few tenths of a percent.
    static var deterministic: [String: String] {
        ProcessInfo.processInfo.environment.merging(["SWIFT_DETERMINISTIC_HASHING": "1"]) { $1 }
    }

    /// The `Collected : N` total of callgrind's summary.
    static func collected(in text: String) -> Double? {
        for line in text.split(separator: "\n") {
            guard let range = line.range(of: "Collected : ") else { continue }
            return Double(line[range.upperBound...].trimmingCharacters(in: .whitespaces))
        }
        return nil
    }
}

/// Reads a pipe to its end on a thread of its own (a full pipe would block the writer).
final class ErrorCollector: @unchecked Sendable {  // `collected` is guarded by `lock`
    private let lock = NSLock()
    private var collected = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ pipe: Pipe) {
        let handle = pipe.fileHandleForReading
        Thread { [self] in
            let data = handle.readDataToEndOfFile()
            lock.withLock { collected = data }
            done.signal()
        }.start()
    }

    /// Everything written, once the writer closed the pipe (waits at most 120 s).
    func text() -> String {
        _ = done.wait(timeout: .now() + 120)
        return lock.withLock { String(decoding: collected, as: UTF8.self) }
    }
}
