import RowCastClient
import RowCastJSON

/// The texts the stream sends (PROTOCOL.md, "The web gateway"): snapshot, position and
/// overflow events of the gateway's own, beside the daemon's deltas and action events as
/// they were published.
enum StreamMessages {
    /// `{"event":"snapshot","feed","seq","epoch","sections":[...]}`: the sections and rows
    /// exactly as in the daemon's snapshot reply at that seq.
    static func snapshot(_ replica: FeedReplica) -> String {
        let whole = replica.snapshotJSON
        let event: JSONValue = [
            "event": "snapshot", "feed": .string(replica.feed), "seq": .number(Double(replica.seq)),
            "epoch": replica.epoch.map(JSONValue.string) ?? .null, "sections": whole["sections"] ?? .array([]),
        ]
        return event.jsonText
    }

    /// `{"event":"position","feed","epoch","seq"}`: where the replica the stream follows stands.
    static func position(feed: String, epoch: String?, seq: Int) -> String {
        let event: JSONValue = [
            "event": "position", "feed": .string(feed), "epoch": epoch.map(JSONValue.string) ?? .null,
            "seq": .number(Double(seq)),
        ]
        return event.jsonText
    }

    /// `{"event":"overflow","feed","message"}`: the last message of a connection that fell
    /// `limit` messages behind; it is then closed, and resumes with `since`.
    static func overflow(feed: String, limit: Int) -> String {
        let event: JSONValue = [
            "event": "overflow", "feed": .string(feed),
            "message": .string(
                "this connection fell \(limit) messages behind and is closed; reconnect with ?since=SEQ&epoch=E to resume"
            ),
        ]
        return event.jsonText
    }

    /// `{"event":"unavailable","feed","message"}`: the gateway cannot reach rowcastd for the
    /// feed; the stream goes on, and a snapshot follows when it can again.
    static func unavailable(feed: String, reason: String) -> String {
        let event: JSONValue = ["event": "unavailable", "feed": .string(feed), "message": .string(reason)]
        return event.jsonText
    }
}
