import Foundation
import RowCastClient
import RowCastJSON

#if canImport(Glibc)
import Glibc
#endif

/// The requests of `--file -`, read from standard input as they arrive: NDJSON is sent line by
/// line (so `producer | rowcast publish --file -` acks each request while the producer runs);
/// a JSON array or a JSON value over several lines is read to the end first, as a file is.
struct StandardInputRequests: RequestSource {
    private let reader: RequestReader
    private var buffer: [UInt8] = []
    /// Where the unread part of `buffer` starts.
    private var start = 0
    private var ended = false
    private var lineNumber = 0
    /// The first line's request, read to tell NDJSON from a whole JSON value.
    private var first: JSONValue?

    /// How the input reads: line by line, or as one whole text.
    enum Opened {
        /// NDJSON, read as it arrives.
        case stream(StandardInputRequests)
        /// One JSON value (an array, or an object over several lines), read to the end.
        case whole([JSONValue])
    }

    private init(reader: RequestReader) {
        self.reader = reader
    }

    /// Reads up to the first line that is not blank and decides: that line alone parsing as
    /// JSON (other than an array's opening) means NDJSON.
    static func open(reader: RequestReader) throws(RowCastClientError) -> Opened {
        var input = StandardInputRequests(reader: reader)
        while let line = input.readLine() {
            guard !RequestReader.isBlankLine(line[...]) else { continue }
            let opensArray = line.first { ![0x20, 0x09, 0x0D].contains($0) } == UInt8(ascii: "[")
            if !opensArray, (try? JSONParser.parse(line)) != nil {
                input.first = try reader.request(fromLine: line, number: input.lineNumber)
                return .stream(input)
            }
            // Not a line of its own: the whole input is one JSON value.
            var text = Array(repeating: UInt8(ascii: "\n"), count: input.lineNumber - 1) + line + [UInt8(ascii: "\n")]
            while let more = input.readLine() { text += more + [UInt8(ascii: "\n")] }
            return .whole(try reader.requests(from: String(decoding: text, as: UTF8.self)))
        }
        return .whole(try reader.requests(from: ""))
    }

    /// The next request; an unreadable line is that request's failure.
    mutating func next() -> Result<JSONValue, RowCastClientError>? {
        if let first {
            self.first = nil
            return .success(first)
        }
        while let line = readLine() {
            guard !RequestReader.isBlankLine(line[...]) else { continue }
            do {
                return .success(try reader.request(fromLine: line, number: lineNumber))
            } catch {
                return .failure(error)
            }
        }
        return nil
    }

    /// Whether no whole line is in hand and standard input has nothing to read yet.
    func wouldWait() -> Bool {
        if first != nil || ended || buffer[start...].contains(UInt8(ascii: "\n")) { return false }
        var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, 0) == 0
    }

    /// A stream: the producer may never end.
    var isBounded: Bool { false }

    /// Whether standard input ended and every line of it was read.
    var isAtEnd: Bool { first == nil && ended && start >= buffer.count }

    /// The next line without its "\n" (the last one may lack it), waiting for it; nil at the end.
    private mutating func readLine() -> [UInt8]? {
        while true {
            if let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(buffer[start..<newline])
                start = newline + 1
                lineNumber += 1
                return line
            }
            if ended {
                guard start < buffer.count else { return nil }
                let line = Array(buffer[start...])
                start = buffer.count
                lineNumber += 1
                return line
            }
            if start > 1 << 16 {
                buffer.removeFirst(start)
                start = 0
            }
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            let count = chunk.withUnsafeMutableBytes { Glibc.read(STDIN_FILENO, $0.baseAddress, $0.count) }
            if count > 0 {
                buffer += chunk[..<count]
            } else if count == 0 || errno != EINTR {
                ended = true
            }
        }
    }
}
