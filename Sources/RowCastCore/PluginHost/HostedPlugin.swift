import Logging
import RowCastKit

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
    /// Whether it handles select actions.
    public let handlesSelect: Bool
    /// What the host did so far.
    public private(set) var statistics = HostStatistics()

    private let image: PluginImage
    private let settings: PluginHostSettings
    private let logger: Logger
    private var process: PluginHostProcess?
    private var consecutiveFaults = 0

    /// The longest wait before restarting a host that keeps failing.
    static let maximumBackoff = Duration.milliseconds(250)

    private init(hello: HostHello, image: PluginImage, process: PluginHostProcess, settings: PluginHostSettings, logger: Logger) {
        name = hello.name
        version = hello.version
        file = image.file
        itemTypes = hello.itemTypes
        headerTypes = hello.headerTypes
        handlesSelect = hello.handlesSelect
        fileIdentity = image.identity
        self.image = image
        self.process = process
        self.settings = settings
        self.logger = logger
        statistics.pid = process.pid
        statistics.state = .running
    }

    /// Copies `file`, starts a host for it and waits for its hello.
    public static func start(_ file: String, settings: PluginHostSettings, logger: Logger) throws(PluginRefusal) -> HostedPlugin {
        let image = try PluginImage.copy(of: file)
        let (process, hello) = try PluginHostProcess.start(image, settings: settings, logger: logger)
        return HostedPlugin(hello: hello, image: image, process: process, settings: settings, logger: logger)
    }

    /// Whether it renders section headers.
    public var rendersHeaders: Bool { !headerTypes.isEmpty }

    /// Runs `calls` in the host, one round trip while nothing goes wrong. A call the host
    /// crashes or hangs on gets its fault; the host is restarted and the calls it had not
    /// answered are sent again. Returns one result or fault per call, in order.
    public func run(_ calls: [HostCall]) -> [Result<HostCallResult, HostFault>] {
        var outcomes = [Result<HostCallResult, HostFault>?](repeating: nil, count: calls.count)
        var pending = Array(calls.indices)
        var blindFaults = 0
        while !pending.isEmpty {
            let host: PluginHostProcess
            do {
                host = try runningHost()
            } catch {
                let fault = HostFault(.crashed, "the plugin host could not be restarted: \(error.reason)")
                for index in pending { outcomes[index] = .failure(fault) }
                break
            }
            switch host.run(pending.map { calls[$0] }[...], timeout: .milliseconds(settings.callTimeoutMilliseconds)) {
            case .completed(let results):
                for (index, result) in zip(pending, results) { outcomes[index] = .success(result) }
                statistics.rendered += results.count
                consecutiveFaults = 0
                pending = []
            case .fault(let fault, let position):
                process = nil
                statistics.faults += 1
                consecutiveFaults += 1
                statistics.state = .restarting
                if let position, position < pending.count {
                    let culprit = pending.remove(at: position)
                    outcomes[culprit] = .failure(fault)
                    statistics.lastFault = HostStatistics.Fault(code: fault.kind.rawValue, reason: fault.reason, item: Self.itemID(calls[culprit].input), at: Self.nowMilliseconds())
                } else {
                    // The host died between calls: resend everything once, then give up on the batch.
                    blindFaults += 1
                    statistics.lastFault = HostStatistics.Fault(code: fault.kind.rawValue, reason: fault.reason, item: nil, at: Self.nowMilliseconds())
                    if blindFaults > 1 {
                        for index in pending { outcomes[index] = .failure(fault) }
                        pending = []
                    }
                }
            }
        }
        return outcomes.map { $0! }
    }

    /// Asks the host to exit (its plugin was replaced or removed).
    public func retire() {
        process?.retire()
        process = nil
        statistics.state = .stopped
        statistics.pid = nil
    }

    /// The running host, or a new one (after a backoff when the host keeps failing).
    private func runningHost() throws(PluginRefusal) -> PluginHostProcess {
        if let process { return process }
        if consecutiveFaults > 1 {
            let delay = min(Self.maximumBackoff, .milliseconds(10 * (1 << min(consecutiveFaults - 2, 10))))
            statistics.state = .backoff
            usleep(UInt32(delay.milliseconds * 1000))
        }
        statistics.state = .starting
        let (process, _) = try PluginHostProcess.start(image, settings: settings, logger: logger)
        self.process = process
        statistics.restarts += 1
        statistics.pid = process.pid
        statistics.state = .running
        return process
    }

    /// The `"id"` of an item input, for the fault record.
    private static func itemID(_ input: [UInt8]) -> String? {
        (try? JSONParser.parse(input))?.objectValue?["id"]?.stringValue
    }

    private static func nowMilliseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
    }

    /// `{"plugin","version","file","pid","state","restarts","rendered","faults","lastFault"}`.
    public var hostDescription: JSONValue {
        var object: JSONObject = [
            "plugin": .string(name), "version": .string(version), "file": .string(file),
            "pid": statistics.pid.map { .number(Double($0)) } ?? .null,
            "state": .string(statistics.state.rawValue),
            "restarts": .number(Double(statistics.restarts)),
            "rendered": .number(Double(statistics.rendered)),
            "faults": .number(Double(statistics.faults)),
        ]
        object.append(key: "lastFault", value: statistics.lastFault?.json ?? .null)
        return .object(object)
    }
}

@available(*, unavailable)
extension HostedPlugin: Sendable {}
