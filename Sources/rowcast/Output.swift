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
