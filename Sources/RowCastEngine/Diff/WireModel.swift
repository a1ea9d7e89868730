import RowCastWire

/// A delta as rowcastd builds it: the shared wire model (RowCastWire's `FeedDelta`, the type
/// RowCastClient decodes into) carrying the stored bytes of every row and section it sends,
/// which `DeltaEncoder` splices in without re-encoding. See docs/PROTOCOL.md ("Applying a
/// delta").
public typealias FeedDelta = RowCastWire.FeedDelta<EncodedPayload>

/// A row's position, section index then row index: RowCastWire's `RowIndexPath`, under the
/// name the engine uses.
public typealias IndexPath = RowIndexPath
