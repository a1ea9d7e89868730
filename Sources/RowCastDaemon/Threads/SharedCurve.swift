import RowCastSupport

/// CURVE with several engine loops (docs/OPERATIONS.md, "Engine threads"): what the front, the
/// publish proxy and every loop share. The group loads the server key pair and the client keys
/// once, before any loop starts; the front's ZAP handler admits connections to the public
/// sockets with the keyring in force here, the proxy checks each subscription with it, and a
/// reload puts the keyring it read once here when every loop has applied it (`SharedReload`).
final class SharedCurve: Sendable {
    /// The server's key pair, which the public sockets serve CURVE with.
    let keyPair: ServerKeyPair
    private let current: LockedValue<ClientKeyring>
    private let refused: LockedValue<Int>

    /// The shared state of `keyPair` and `keyring`.
    init(keyPair: ServerKeyPair, keyring: ClientKeyring) {
        self.keyPair = keyPair
        current = LockedValue(keyring)
        refused = LockedValue(0)
    }

    /// The client keys in force: those read at the start, or by the last reload every loop
    /// applied.
    var keyring: ClientKeyring {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }

    /// Subscriptions the proxy refused so far (`curve.refusedSubscriptions` in `status`).
    var refusedSubscriptions: Int { refused.withLock { $0 } }

    /// Counts a refused subscription; returns the count with it.
    func countRefusedSubscription() -> Int {
        refused.withLock {
            $0 += 1
            return $0
        }
    }
}
