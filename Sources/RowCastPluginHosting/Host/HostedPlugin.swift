import Logging
import RowCastSupport
import RowCastJSON

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A plugin that runs in a `rowcast-plugin-host` process: what its host said of it, the private
/// copy of its file, and the host, restarted after each fault.
///
/// Not `Sendable`: the loop thread alone calls it.
public final class HostedPlugin: RegisteredPlugin {
    /// The plugin's name.
    public let name: String
    /// The plugin's version.
    public let version: String
    /// The plugin file.
    public let file: String
    /// The item types it renders.
    public let itemTypes: [String]
    /// The section types whose headers it renders.
    public let headerTypes: [String]
    /// The file's identity when it was copied.
    public let fileIdentity: PluginFileIdentity
    /// Name, version, file and the file's identity, as ``RegisteredPlugin`` asks.
    public let rendererIdentity: String
    /// Whether it handles select actions.
    public let handlesSelect: Bool
    /// The ABI revision the plugin was built for (2: its action handler may return changes).
    public let abiRevision: Int
    /// What the host did so far.
    public internal(set) var statistics = HostStatistics()
    /// The confinement its host reported at its last start, with rowcastd's own part.
    public internal(set) var confinement: HostConfinement

    private let image: PluginImage
    let settings: PluginHostSettings
    let logger: Logger
    /// The running host, nil after a fault until the next call restarts it.
    var process: PluginHostProcess?
    /// A host started after a fault whose hello has not come yet; the active batch's calls
    /// in flight are sent to it once it has (`HostedPlugin+Batches.swift`).
    var startingHost: PluginHostProcess?
    /// When the plugin is paused for crashing or hanging again and again.
    var breaker = CrashLoopBreaker()
    /// The batch the host is working on, if any (see `HostedPlugin+Batches.swift`).
    var active: HostBatch?
    /// Batches waiting for `active` to end, oldest first.
    var queued: [HostBatch] = []
    /// Told of every round trip and fault (the daemon's metrics), when set.
    public var observer: PluginHostObserver?

    private init(
        hello: HostHello, image: PluginImage, process: PluginHostProcess, settings: PluginHostSettings, logger: Logger
    ) {
        name = hello.name
        version = hello.version
        file = image.file
        itemTypes = hello.itemTypes
        headerTypes = hello.headerTypes
        handlesSelect = hello.handlesSelect
        abiRevision = hello.abiRevision
        confinement = Self.confinement(reported: hello.confinement, process: process)
        fileIdentity = image.identity
        rendererIdentity = image.identity.rendererIdentity(name: hello.name, version: hello.version, file: image.file)
        self.image = image
        self.process = process
        self.settings = settings
        self.logger = logger
        statistics.pid = process.pid
        statistics.state = .running
    }

    /// Copies `file`, starts a host for it and waits for its hello.
    public static func start(
        _ file: String, settings: PluginHostSettings, logger: Logger
    ) throws(PluginRefusal) -> HostedPlugin {
        let image = try PluginImage.copy(of: file)
        let (process, hello) = try PluginHostProcess.start(image, settings: settings, logger: logger)
        let plugin = HostedPlugin(hello: hello, image: image, process: process, settings: settings, logger: logger)
        plugin.logConfinement()
        return plugin
    }

    /// The confinement a host `reported`, with what rowcastd adds: the process group, and the
    /// control group when the host joined it.
    static func confinement(reported: HostConfinement, process: PluginHostProcess) -> HostConfinement {
        var confinement = reported
        confinement.measures.append(HostConfinement.Measure.processGroup)
        if let group = process.controlGroup, !reported.gaps.contains(where: { $0.hasPrefix("cgroup") }) {
            confinement.measures.append(group.measure)
        } else if let gap = process.controlGroupGap {
            confinement.gaps.append("cgroup: \(gap)")
        }
        return confinement
    }

    /// Logs the confinement in force, and each gap as a warning.
    func logConfinement() {
        let metadata: Logger.Metadata = ["plugin": "\(name)", "file": "\(file)"]
        logger.info("plugin host confined by \(confinement.summary)", metadata: metadata)
        for gap in confinement.gaps {
            logger.warning("plugin host not confined by \(gap)", metadata: metadata)
        }
    }

    /// Whether it renders section headers.
    public var rendersHeaders: Bool { !headerTypes.isEmpty }

    /// Runs `calls` in the host, one round trip while nothing goes wrong. A call the host
    /// crashes or hangs on gets its fault; the host is restarted and the calls it had not
    /// answered are sent again. Returns one result or fault per call, in order.
    public func run(_ calls: [HostCall]) -> [Result<HostCallResult, HostFault>] {
        let batch = start(calls)
        batch.finish()
        return batch.outcomes.map { $0! }
    }

    /// Asks the host to exit (its plugin was replaced or removed).
    public func retire() {
        process?.retire()
        process = nil
        startingHost?.retire()
        startingHost = nil
        statistics.state = .stopped
        statistics.pid = nil
    }

    /// Starts a new host without waiting for its hello (`startingHost`); the calls for it
    /// are sent once `takeStartedHost` finds the hello.
    func launchHost() throws(PluginRefusal) -> PluginHostProcess {
        statistics.state = .starting
        let host = try PluginHostProcess.launch(image, settings: settings, logger: logger)
        startingHost = host
        return host
    }

    /// The host being started, once it said hello (nil: not yet; with `waiting`, it waits
    /// for the hello or the start timeout). It becomes the running host.
    func takeStartedHost(waiting: Bool) throws(PluginRefusal) -> PluginHostProcess? {
        guard let host = startingHost else { return process }
        var hello = try host.takeHello()
        while hello == nil, waiting {
            var descriptors = host.descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            _ = poll(&descriptors, nfds_t(descriptors.count), 50)
            hello = try host.takeHello()
        }
        guard let hello else { return nil }
        startingHost = nil
        process = host
        let confinement = Self.confinement(reported: hello.confinement, process: host)
        if confinement != self.confinement {
            self.confinement = confinement
            logConfinement()
        }
        statistics.restarts += 1
        statistics.pid = host.pid
        statistics.state = .running
        return host
    }

    /// The `"id"` of an item input, for the fault record.
    static func itemID(_ input: [UInt8]) -> String? {
        (try? JSONParser.parse(input))?.objectValue?["id"]?.stringValue
    }

    static func nowMilliseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
    }

    /// Where the host is now: a pause that ended leaves it dead until the next call.
    var currentState: HostStatistics.State {
        statistics.state == .backoff && breaker.remainingPause(at: .now) == nil ? .restarting : statistics.state
    }

    /// `{"plugin","version","file","pid","state","restarts","rendered","faults","lastFault",
    /// "pausedFor","confinement"}` (`pausedFor`: milliseconds left of a pause, or null).
    public var hostDescription: JSONValue {
        var object: JSONObject = [
            "plugin": .string(name), "version": .string(version), "file": .string(file),
            "pid": statistics.pid.map { .number(Double($0)) } ?? .null,
            "state": .string(currentState.rawValue),
            "restarts": .number(Double(statistics.restarts)),
            "rendered": .number(Double(statistics.rendered)),
            "faults": .number(Double(statistics.faults)),
        ]
        object.append(key: "lastFault", value: statistics.lastFault?.json ?? .null)
        let pause = breaker.remainingPause(at: .now)
        object.append(key: "pausedFor", value: pause.map { .number(Double($0.wholeMilliseconds)) } ?? .null)
        object.append(key: "confinement", value: confinement.json)
        return .object(object)
    }
}

@available(*, unavailable)
extension HostedPlugin: Sendable {}
