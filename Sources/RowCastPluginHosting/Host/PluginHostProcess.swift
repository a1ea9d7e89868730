import CRowCastHost
import Logging
import RowCastSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One running `rowcast-plugin-host` as rowcastd sees it: the child's pid, the daemon's end of
/// its channel, its status page and the pipe that carries what the plugin prints.
///
/// Not `Sendable`: it belongs to the loop thread, which alone talks to the host.
final class PluginHostProcess {
    /// What the host sent while answering a batch.
    enum Event {
        /// The results of the next calls of the batch, in order.
        case results([HostCallResult])
        /// The host died, hung or broke the protocol; `index` is the call of the batch in
        /// progress then (nil: none had started).
        case fault(HostFault, index: Int?)
    }

    /// The host's pid.
    let pid: pid_t
    /// The host's own control group, if rowcastd could make one.
    let controlGroup: HostControlGroup?
    /// Why it has none, when it has none.
    let controlGroupGap: String?
    private let channel: Int32
    private let page: HostStatusPage
    private let log: HostLogRelay
    private var reader = HostFrameReader()
    /// Where each batch frame is written, kept from batch to batch.
    private var batchWriter = HostWireWriter(capacity: 64 * 1024)
    /// The largest batch buffer kept for the next batch; one grown past it is let go.
    static let keptBatchCapacity = 1 << 20
    private var exited = false
    private var retired = false
    private var seenCalls: UInt64 = 0
    private var progress = ContinuousClock.now
    /// The plugin file it hosts, for the refusals of its start.
    private var file = ""
    /// When a host that has not said hello yet is given up.
    private var startDeadline = ContinuousClock.now

    private init(
        pid: pid_t, channel: Int32, page: HostStatusPage, log: HostLogRelay,
        controlGroup: (group: HostControlGroup?, gap: String?)
    ) {
        self.pid = pid
        self.controlGroup = controlGroup.group
        self.controlGroupGap = controlGroup.gap
        self.channel = channel
        self.page = page
        self.log = log
    }

    deinit {
        close(channel)
        if !exited {
            if !retired { killGroup() }
            HostReaper.shared.adopt(pid, controlGroup: controlGroup)
        }
    }

    /// Starts a host for `image` and waits (at most the start timeout) for its hello.
    static func start(
        _ image: PluginImage, settings: PluginHostSettings, logger: Logger
    ) throws(PluginRefusal) -> (PluginHostProcess, HostHello) {
        let process = try launch(image, settings: settings, logger: logger)
        while true {
            if let hello = try process.takeHello() { return (process, hello) }
            _ = process.wait(milliseconds: 50)
        }
    }

    /// Starts a host for `image` without waiting for its hello: `takeHello` reads it when it
    /// came (a restart, so that the loop goes on meanwhile).
    static func launch(
        _ image: PluginImage, settings: PluginHostSettings, logger: Logger
    ) throws(PluginRefusal) -> PluginHostProcess {
        func refusal(_ reason: String) -> PluginRefusal {
            PluginRefusal(file: image.file, code: .hostFailed, reason: reason)
        }
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw refusal("cannot create the plugin host's channel: \(String(cString: strerror(errno)))")
        }
        var logPipe: [Int32] = [-1, -1]
        guard rowcast_pipe_cloexec(&logPipe) == 0 else {
            close(pair[0]); close(pair[1])
            throw refusal("cannot create the plugin host's log pipe: \(String(cString: strerror(errno)))")
        }
        guard let page = HostStatusPage.create() else {
            close(pair[0]); close(pair[1]); close(logPipe[0]); close(logPipe[1])
            throw refusal("cannot create the plugin host's status page: \(String(cString: strerror(errno)))")
        }
        // Every descriptor handed over must lie above the child's 0-5 (see rowcast_spawn).
        let high = { (descriptor: Int32) -> Int32 in fcntl(descriptor, F_DUPFD_CLOEXEC, 10) }
        let devNull = open("/dev/null", O_RDONLY | O_CLOEXEC)
        let childFDs: [Int32] = [
            high(devNull), high(logPipe[1]), high(logPipe[1]), high(pair[1]), high(page.descriptor),
            high(image.descriptor),
        ]
        defer {
            for descriptor in childFDs where descriptor >= 0 { close(descriptor) }
            close(devNull); close(pair[1]); close(logPipe[1])
        }
        guard devNull >= 0, !childFDs.contains(where: { $0 < 0 }) else {
            close(pair[0]); close(logPipe[0])
            throw refusal("cannot prepare the plugin host's descriptors: \(String(cString: strerror(errno)))")
        }
        var arguments = [settings.executable, "--file", image.file, "--memory-mb", String(settings.memoryMegabytes)]
        if let user = settings.user, !user.isEmpty { arguments += ["--user", user] }
        arguments += ["--confinement", settings.isUnconfined(image.file) ? "relaxed" : "strict"]
        let controlGroup = HostControlGroup.create(memoryMegabytes: settings.memoryMegabytes)
        for file in controlGroup.group?.processFiles ?? [] { arguments += ["--cgroup", file] }
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        // No Swift backtracer in a host: symbolicating a plugin's crash takes seconds, which
        // would turn every crash into a timeout and hold the loop meanwhile.
        var environment = ["PATH=/usr/bin:/bin", "SWIFT_BACKTRACE=enable=no"]
        // A sanitized build (make test-asan, test-tsan) passes its options on to its hosts.
        for name in ["ASAN_OPTIONS", "TSAN_OPTIONS", "UBSAN_OPTIONS"] {
            if let value = getenv(name) { environment.append("\(name)=\(String(cString: value))") }
        }
        var envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid: pid_t = 0
        guard rowcast_spawn(settings.executable, &argv, &envp, childFDs, Int32(childFDs.count), &pid) == 0 else {
            close(pair[0]); close(logPipe[0])
            controlGroup.group?.remove()
            throw refusal(
                "cannot start the plugin host \(settings.executable): \(String(cString: strerror(errno))); check plugin_host"
            )
        }
        _ = fcntl(pair[0], F_SETFL, fcntl(pair[0], F_GETFL) | O_NONBLOCK)
        let label = image.file.split(separator: "/").last.map(String.init) ?? image.file
        let process = PluginHostProcess(
            pid: pid, channel: pair[0], page: page,
            log: HostLogRelay(descriptor: logPipe[0], plugin: label, logger: logger), controlGroup: controlGroup)
        process.file = image.file
        process.startDeadline = .now + .milliseconds(settings.startTimeoutMilliseconds)
        return process
    }

    /// The host's hello, once it came (nil: not yet, without waiting). Throws when the host
    /// refused the plugin, exited, broke the channel, or let the start timeout pass.
    func takeHello() throws(PluginRefusal) -> HostHello? {
        func refusal(_ reason: String) -> PluginRefusal {
            PluginRefusal(file: file, code: .hostFailed, reason: reason)
        }
        while true {
            let frame: [UInt8]?
            do {
                frame = try reader.next()
            } catch {
                throw refusal("the plugin host broke its channel while starting: \(error)")
            }
            if let frame {
                switch frame.first.flatMap(HostFrame.Tag.init(rawValue:)) {
                case .hello:
                    do {
                        return try HostHello(json: Array(frame.dropFirst()))
                    } catch {
                        throw refusal("the plugin host sent \(error)")
                    }
                case .refused:
                    throw HostHello.refusal(json: Array(frame.dropFirst()), file: file)
                default:
                    throw refusal("the plugin host sent an unexpected frame while starting")
                }
            }
            switch wait(milliseconds: 0) {
            case .readable: continue
            case .closed:
                throw refusal("the plugin host exited while loading the plugin (\(reap())); see the log lines above")
            case .idle:
                break
            }
            guard ContinuousClock.now < startDeadline else {
                killGroup()
                throw refusal("the plugin host did not load the plugin within the start timeout (\(reap()))")
            }
            return nil
        }
    }

    /// How long a host being started may still take to say hello (at most 100 ms, as
    /// `remaining(of:)`).
    var remainingStart: Duration {
        min(.milliseconds(100), max(.milliseconds(1), startDeadline - .now))
    }

    /// Sends a batch of calls; nil when the host took it, the fault otherwise. The host answers
    /// in chunks of results (see ``receive(timeout:)``); one batch at a time.
    func send(_ calls: ArraySlice<HostCall>) -> HostFault? {
        page.resetIndex()
        batchWriter.removeAll(keepingCapacityUpTo: Self.keptBatchCapacity)
        HostCall.writeBatchFrame(calls, into: &batchWriter)
        guard HostFrame.send(batchWriter.bytes, on: channel) else {
            killGroup()  // gone, or no longer reading its channel
            return HostFault(.crashed, "the host did not take the batch (\(reap()))")
        }
        seenCalls = page.callsStarted
        progress = .now
        return nil
    }

    /// The next chunk of results of the batch sent, in call order, or how the host failed:
    /// each call may take `timeout` before the host is killed. Without `waiting`, it reads only
    /// what the host already sent and returns nil when no whole chunk has arrived (the caller
    /// polls `descriptors` and asks again within `remaining(of:)`).
    func receive(timeout: Duration, waiting: Bool = true) -> Event? {
        var lookedPastDeadline = false
        while true {
            do {
                if let frame = try reader.nextFrame() {
                    var wire = HostWireReader(frame)
                    guard try wire.uint8() == HostFrame.Tag.results.rawValue else {
                        throw HostChannelError("a frame that is not results")
                    }
                    return .results(try HostCallResult.decodeResults(&wire))
                }
            } catch {
                return abandon(because: "\(error)")
            }
            let waited = noteProgress()
            if waited >= timeout {
                // What the host sent before the deadline counts: the loop may have been busy
                // (sending a commit's output) since its last look. One look, so a host that
                // trickles bytes cannot put the deadline off.
                if !lookedPastDeadline {
                    lookedPastDeadline = true
                    switch wait(milliseconds: 0) {
                    case .readable: continue
                    case .closed:
                        let index = page.currentIndex
                        return .fault(HostFault(.crashed, reap()), index: index)
                    case .idle: break
                    }
                }
                let index = page.currentIndex
                killGroup()
                _ = reap()
                return .fault(
                    HostFault(
                        .timeout, "a callback ran longer than \(timeout.wholeMilliseconds) ms; the host was killed"),
                    index: index)
            }
            switch wait(milliseconds: waiting ? Int(min(100, max(1, (timeout - waited).wholeMilliseconds))) : 0) {
            case .readable: continue
            case .idle: if !waiting { return nil }
            case .closed:
                let index = page.currentIndex
                return .fault(HostFault(.crashed, reap()), index: index)
            }
        }
    }

    /// The descriptors that turn readable when the host sent something: its channel and the
    /// pipe of what the plugin prints.
    var descriptors: [Int32] { [channel, log.descriptor] }

    /// How long a `receive` without waiting may be put off before the call in progress
    /// overruns `timeout` (at most 100 ms, so a slow call's progress is noticed).
    func remaining(of timeout: Duration) -> Duration {
        min(.milliseconds(100), max(.milliseconds(1), timeout - (ContinuousClock.now - progress)))
    }

    /// Notes a call started since the last look (the host made progress) and returns how long
    /// the call in progress has run.
    private func noteProgress() -> Duration {
        let started = page.callsStarted
        if started != seenCalls {
            seenCalls = started
            progress = .now
        }
        return ContinuousClock.now - progress
    }

    /// Kills a host that broke the channel protocol (`problem` says how).
    func abandon(because problem: String) -> Event {
        let index = page.currentIndex
        killGroup()
        return .fault(
            HostFault(.crashed, "the host broke the channel protocol (\(problem)); it was killed (\(reap()))"),
            index: index)
    }

    /// Asks the host to exit once it is done; it is reaped in the background.
    func retire() {
        retired = HostFrame.send([HostFrame.Tag.quit.rawValue], on: channel)
    }

    /// What `wait` saw.
    private enum Readiness { case readable, idle, closed }

    /// Waits up to `milliseconds` (0: only looks) for the channel, relaying what the plugin
    /// printed meanwhile.
    private func wait(milliseconds: Int) -> Readiness {
        var descriptors = [
            pollfd(fd: channel, events: Int16(POLLIN), revents: 0),
            pollfd(fd: log.descriptor, events: Int16(POLLIN), revents: 0),
        ]
        let count = poll(&descriptors, nfds_t(descriptors.count), Int32(milliseconds))
        if count <= 0 { return .idle }
        if descriptors[1].revents != 0 { log.drain() }
        if descriptors[0].revents & Int16(POLLIN) != 0 {
            return reader.fill(from: channel) ? .readable : .closed
        }
        if descriptors[0].revents & Int16(POLLHUP | POLLERR) != 0 { return .closed }
        return .idle
    }

    /// Kills the host and whatever it started: its process group (its own, see
    /// `rowcast_spawn`), which a child can leave only where seccomp is not in force.
    private func killGroup() {
        kill(-pid, SIGKILL)
        kill(pid, SIGKILL)
    }

    /// Waits for the dead (or killed) host and says how it ended. What the host started dies
    /// with it: its process group is killed while the host's pid is still held (unreaped).
    private func reap() -> String {
        log.drain()
        guard !exited else { return "already reaped" }
        kill(-pid, SIGKILL)
        controlGroup?.killAll()
        var status: Int32 = 0
        var result: pid_t
        let deadline = ContinuousClock.now + .seconds(2)
        repeat {
            result = waitpid(pid, &status, WNOHANG)
            if result == 0 {
                if ContinuousClock.now >= deadline { killGroup() }
                usleep(1000)
            }
        } while result == 0 || (result < 0 && errno == EINTR)
        exited = true
        controlGroup?.remove()
        log.drain()
        guard result == pid else { return "exit status unknown" }
        return Self.describe(status)
    }

    /// `exited with status 3`, `killed by signal 11 (SIGSEGV)`.
    static func describe(_ status: Int32) -> String {
        let signal = status & 0x7f
        if signal == 0 { return "exited with status \((status >> 8) & 0xff)" }
        let name = strsignal(signal).map { String(cString: $0) } ?? "signal \(signal)"
        return "killed by signal \(signal) (\(name))"
    }
}

@available(*, unavailable)
extension PluginHostProcess: Sendable {}
