import CRowCastFuzz

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// rowcast-fuzz HARNESS [libFuzzer flags] [corpus directories]: `make fuzz` builds it with
// libFuzzer and runs every harness for a bounded time on the corpus in Fuzz/corpus.

nonisolated(unsafe) var harness = FuzzHarness.json

/// Writes `message` to standard error.
func complain(_ message: String) {
    _ = message.withCString { write(2, $0, strlen($0)) }
}

let usage =
    "usage: rowcast-fuzz \(FuzzHarness.allCases.map(\.rawValue).joined(separator: "|")) [libFuzzer flags] [corpus directories]\n"
guard CommandLine.arguments.count >= 2, let chosen = FuzzHarness(rawValue: CommandLine.arguments[1]) else {
    complain(usage)
    exit(64)
}
harness = chosen

// libFuzzer sees the program name and everything after the harness.
var arguments: [UnsafeMutablePointer<CChar>?] =
    ([CommandLine.arguments[0]] + CommandLine.arguments.dropFirst(2)).map { strdup($0) } + [nil]
var count = Int32(arguments.count - 1)
let status = arguments.withUnsafeMutableBufferPointer { buffer -> Int32 in
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = buffer.baseAddress
    return rowcast_fuzz_run_driver(&count, &argv) { data, size in
        harness.run(size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size)))
        return 0
    }
}
if status < 0 {
    complain("rowcast-fuzz: this build has no libFuzzer; build and run it with `make fuzz`\n")
    exit(70)
}
exit(status)
