import Foundation

/// CPU time a process has used, read from `/proc`: the whole process and its busiest thread.
/// CPU time per item holds up on a shared machine where wall-clock rates do not.
struct ProcessCPU {
    /// User plus system seconds of every thread of the process.
    var processSeconds = 0.0
    /// User plus system seconds by thread id.
    var threadSeconds: [Int: Double] = [:]
    /// System (kernel) seconds by thread id.
    var threadSystemSeconds: [Int: Double] = [:]
    /// The name of each thread (`/proc/…/comm`), by thread id.
    var threadNames: [Int: String] = [:]

    /// The counters of process `pid` now (zero when it cannot be read).
    static func sample(pid: Int32) -> ProcessCPU {
        var sample = ProcessCPU()
        sample.processSeconds = seconds(inStatFile: "/proc/\(pid)/stat")
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        for task in tasks {
            guard let tid = Int(task) else { continue }
            let times = userAndSystemSeconds(inStatFile: "/proc/\(pid)/task/\(task)/stat")
            sample.threadSeconds[tid] = times.user + times.system
            sample.threadSystemSeconds[tid] = times.system
            sample.threadNames[tid] = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return sample
    }

    /// What was used between `earlier` and this sample: the whole process, and the thread that
    /// used the most.
    func since(_ earlier: ProcessCPU) -> (process: Double, busiestThread: Double) {
        var busiest = 0.0
        for (tid, seconds) in threadSeconds {
            busiest = max(busiest, seconds - (earlier.threadSeconds[tid] ?? 0))
        }
        return (processSeconds - earlier.processSeconds, busiest)
    }

    /// Seconds used since `earlier` (all, and in the kernel), summed by thread name, busiest first.
    func byThreadName(since earlier: ProcessCPU) -> [ThreadCPU] {
        var sums: [String: ThreadCPU] = [:]
        for (tid, seconds) in threadSeconds {
            let name = threadNames[tid] ?? "?"
            sums[name, default: ThreadCPU(name: name)].seconds += seconds - (earlier.threadSeconds[tid] ?? 0)
            sums[name, default: ThreadCPU(name: name)].systemSeconds +=
                (threadSystemSeconds[tid] ?? 0) - (earlier.threadSystemSeconds[tid] ?? 0)
        }
        return sums.values.sorted { $0.seconds > $1.seconds }
    }

    /// User plus system seconds of each child process of `pid` (its plugin hosts), by pid.
    static func childrenSeconds(pid: Int32) -> [Int: Double] {
        var children: [Int: Double] = [:]
        for child in childIdentifiers(pid: pid) {
            children[child] = seconds(inStatFile: "/proc/\(child)/stat")
        }
        return children
    }

    /// The counters of each child process of `pid` (its plugin hosts) now, by pid.
    static func childrenSamples(pid: Int32) -> [Int: ProcessCPU] {
        var children: [Int: ProcessCPU] = [:]
        for child in childIdentifiers(pid: pid) {
            children[child] = sample(pid: Int32(child))
        }
        return children
    }

    /// What the children in `after` used since `before`, summed by thread name with `prefix`
    /// before each name, busiest first (a child that was not there before counts from zero).
    static func byThreadName(
        of after: [Int: ProcessCPU], since before: [Int: ProcessCPU], prefix: String
    ) -> [ThreadCPU] {
        var sums: [String: ThreadCPU] = [:]
        for (pid, sample) in after {
            for thread in sample.byThreadName(since: before[pid] ?? ProcessCPU()) {
                let name = prefix + thread.name
                sums[name, default: ThreadCPU(name: name)].seconds += thread.seconds
                sums[name, default: ThreadCPU(name: name)].systemSeconds += thread.systemSeconds
            }
        }
        return sums.values.sorted { $0.seconds > $1.seconds }
    }

    /// The process ids of `pid`'s children, from every thread's `children` list.
    private static func childIdentifiers(pid: Int32) -> [Int] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.flatMap { task in
            let list = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8)) ?? ""
            return list.split(separator: " ").compactMap { Int($0) }
        }
    }

    /// utime + stime (fields 14 and 15 of a stat file, after the parenthesised name) in seconds.
    private static func seconds(inStatFile path: String) -> Double {
        let times = userAndSystemSeconds(inStatFile: path)
        return times.user + times.system
    }

    /// utime and stime (fields 14 and 15 of a stat file) in seconds (zeros when unreadable).
    private static func userAndSystemSeconds(inStatFile path: String) -> (user: Double, system: Double) {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return (0, 0) }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // fields[0] is the state (field 3); utime is field 14, stime field 15.
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return (0, 0) }
        let tick = Double(sysconf(Int32(_SC_CLK_TCK)))
        return (user / tick, system / tick)
    }
}

/// The CPU one named thread (or all threads of that name) used.
struct ThreadCPU {
    /// The thread's name (`/proc/…/comm`).
    var name: String
    /// User plus system seconds.
    var seconds = 0.0
    /// System seconds (in the kernel: system calls, page faults).
    var systemSeconds = 0.0
}
