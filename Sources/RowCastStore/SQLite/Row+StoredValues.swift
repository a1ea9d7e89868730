import Foundation
import GRDB

/// Columns of a stored row read without trusting their types: a value damaged into another
/// type (or a negative count) gives nil, where GRDB's typed subscripts would stop the process.
extension Row {
    /// The text at `index`.
    func storedText(_ index: Int) -> String? {
        String.fromDatabaseValue(self[index] as DatabaseValue)
    }

    /// The optional text at `index`: `.some(nil)` for NULL, nil for another type.
    func storedOptionalText(_ index: Int) -> String?? {
        let value = self[index] as DatabaseValue
        if value.isNull { return .some(nil) }
        return String.fromDatabaseValue(value).map { .some($0) }
    }

    /// The integer at `index`.
    func storedInteger(_ index: Int) -> Int64? {
        guard case .int64(let value) = (self[index] as DatabaseValue).storage else { return nil }
        return value
    }

    /// The count (an integer, 0 or more) at `index`.
    func storedCount(_ index: Int) -> UInt64? {
        storedInteger(index).flatMap { UInt64(exactly: $0) }
    }

    /// The optional number at `index`: `.some(nil)` for NULL, nil for a value that is not a number.
    func storedOptionalNumber(_ index: Int) -> Double?? {
        switch (self[index] as DatabaseValue).storage {
        case .null: return .some(nil)
        case .int64(let value): return .some(Double(value))
        case .double(let value): return .some(value)
        default: return nil
        }
    }

    /// The bytes of the blob (or text) at `index`.
    func storedBytes(_ index: Int) -> [UInt8]? {
        Data.fromDatabaseValue(self[index] as DatabaseValue).map { [UInt8]($0) }
    }

    /// The optional integer at `index`: `.some(nil)` for NULL, nil for another type.
    func storedOptionalInteger(_ index: Int) -> Int64?? {
        let value = self[index] as DatabaseValue
        if value.isNull { return .some(nil) }
        return storedInteger(index).map { .some($0) }
    }

    /// The optional bytes of the blob at `index`: `.some(nil)` for NULL, nil for another type.
    func storedOptionalBytes(_ index: Int) -> [UInt8]?? {
        switch (self[index] as DatabaseValue).storage {
        case .null: return .some(nil)
        case .blob(let data): return .some([UInt8](data))
        default: return nil
        }
    }
}
