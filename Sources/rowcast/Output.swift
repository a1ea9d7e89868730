import ArgumentParser
import Foundation
import RowCastClient
import RowCastJSON

/// Writing results to standard output and problems to standard error, one line each,
/// flushed at once so that pipes see every line as it happens.
enum Output {
    /// Prints `text` and a newline on standard output.
    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// Prints `value` as one line of compact JSON.
    static func json(_ value: JSONValue) {
        var bytes = value.serialized()
        bytes.append(UInt8(ascii: "\n"))
        FileHandle.standardOutput.write(Data(bytes))
    }

    /// Prints a note for humans on standard error ("rowcast: ...").
    static func note(_ text: String) {
        FileHandle.standardError.write(Data("rowcast: \(text)\n".utf8))
    }

    /// Prints "error: code: message" on standard error.
    static func error(_ error: RowCastClientError) {
        FileHandle.standardError.write(Data("error: \(error.description)\n".utf8))
    }

    /// Prints "warning: code: message" on standard error: a problem that did not make the
    /// request fail (an item a reset left out, an id it listed twice).
    static func warning(_ warning: RowCastClientError) {
        FileHandle.standardError.write(Data("warning: \(warning.description)\n".utf8))
    }

    /// Prints the items a reset left out and the ids it listed twice as warnings, at most
    /// `limit` of each, then how many more there were.
    static func problems(of ack: RowCastAck, limit: Int = 10) {
        for (problems, what) in [(ack.rejected, "rejected items"), (ack.duplicates, "duplicate ids")] {
            problems.prefix(limit).forEach(warning)
            if problems.count > limit {
                note("\(problems.count - limit) more \(what) not shown (--json lists them all)")
            }
        }
    }
}

/// Runs `body`; a ``RowCastClientError`` is printed in one line and becomes exit status 1.
func reportingErrors(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let error as RowCastClientError {
        Output.error(error)
        throw ExitCode.failure
    }
}
