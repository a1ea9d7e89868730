import Mustache
import RowCastKit

/// One field value of an item as a template sees it: rendered as written (`{{price}}` is
/// `39999`), with the transforms of declarative cells: `money`, `count`, `date`, `datetime`,
/// `relative_date`, and Mustache's own string transforms (`uppercased`, `lowercased`,
/// `capitalized`, `reversed`, `empty`).
struct CellValue: MustacheCustomRenderable, MustacheTransformable, MustacheParent {
    /// The value, already checked against its field's type.
    let value: JSONValue
    /// The field's declared type.
    let type: CellFieldType
    /// The settings of the render (currency symbol, the time `relative_date` counts from).
    let settings: CellRenderSettings

    var renderText: String { Self.text(of: value) }

    /// A value as `{{field}}` writes it: a string as it is, anything else as JSON.
    static func text(of value: JSONValue) -> String {
        switch value {
        case .string(let string): return string
        default: return value.description
        }
    }

    var isNull: Bool { false }

    /// A scalar has no members (and its stored properties are not for templates): inside its
    /// section, names are looked up further out.
    func child(named name: String) -> Any? { nil }

    func transform(_ name: String) -> Any? {
        switch name {
        case "money", "count", "date", "datetime", "relative_date":
            return Self.transform(name, value: value, settings: settings)
        default: return value.stringValue?.transform(name)  // `empty` stays a Bool, for sections
        }
    }

    /// `value` through the transform `name` as text, or nil when the transform does not apply.
    static func transform(_ name: String, value: JSONValue, settings: CellRenderSettings) -> String? {
        switch name {
        case "money":
            return value.numberValue.map { Money.format($0, symbol: settings.currency) }
        case "count":
            return value.numberValue.map(CellCount.format)
        case "date", "datetime", "relative_date":
            guard let seconds = value.numberValue ?? value.stringValue.flatMap(CellDate.parse),
                CellDate.representable.contains(seconds)
            else { return nil }
            switch name {
            case "date": return CellDate.absolute(seconds)
            case "datetime": return CellDate.absoluteWithTime(seconds)
            default: return CellDate.relative(seconds, now: settings.now)
            }
        default:
            return (value.stringValue?.transform(name)).map { "\($0)" }
        }
    }

    /// The transforms a field of `type` accepts, for checking templates when a file loads.
    static func transforms(for type: CellFieldType) -> [String] {
        switch type {
        case .number, .integer: return ["money", "count"]
        case .date: return ["date", "datetime", "relative_date"]
        case .string, .url: return ["uppercased", "lowercased", "capitalized", "reversed", "empty"]
        case .bool: return []
        }
    }
}

/// What a render of declarative cells depends on besides the item.
public struct CellRenderSettings: Sendable {
    /// The symbol `money` writes before an amount.
    public var currency: String
    /// Seconds since 1970 that `relative_date` counts from: the time of the render.
    public var now: Double

    /// Settings for one render.
    public init(currency: String = "$", now: Double) {
        self.currency = currency
        self.now = now
    }
}
