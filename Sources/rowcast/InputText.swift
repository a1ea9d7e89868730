import Foundation
import RowCastClient

/// Reading the text an option names: a file, or standard input for `-`.
enum InputText {
    /// The text of `path`, or of standard input for `-`; `option` names the flag in errors.
    static func read(_ path: String, option: String) throws(RowCastClientError) -> String {
        if path == "-" {
            return String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw RowCastClientError(
                code: "invalid_request", message: "cannot read \(option) \(path): no such readable file")
        }
        return String(decoding: data, as: UTF8.self)
    }
}
