import RowCastJSON

/// How a ``FeedDelta`` holds the sections and rows it carries: the one wire model, with the
/// bytes rowcastd splices into a delta (``EncodedPayload``) or the values a client reads out
/// of one (``ParsedPayload``).
public protocol DeltaPayload {
    /// A section object (`id`, `order`, `type`, `header`, `headerRow`).
    associatedtype Section: Sendable & Equatable
    /// A rendered row object.
    associatedtype Row: Sendable & Equatable
}

/// Sections and rows as the JSON bytes rowcastd stored when it rendered them, written into a
/// delta without re-encoding (RowCastEngine's `DeltaEncoder`).
public enum EncodedPayload: DeltaPayload {
    /// The section object's JSON bytes.
    public typealias Section = [UInt8]
    /// The row object's JSON bytes.
    public typealias Row = [UInt8]
}

/// Sections and rows as parsed JSON, as a client reads them from a published delta
/// (RowCastClient's `FeedDelta(json:)`).
public enum ParsedPayload: DeltaPayload {
    /// The section object, without `rows`.
    public typealias Section = JSONObject
    /// The row object.
    public typealias Row = JSONValue
}
