import CZeroMQ

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// CURVE, ZeroMQ's encryption and authentication by public key (RFC 26): key pairs as Z85
/// text (40 characters for 32 bytes), and whether this libzmq was built with it.
public enum Curve {
    /// Whether libzmq supports CURVE (`zmq_has("curve")`: built with libsodium or tweetnacl).
    public static var isAvailable: Bool { zmq_has("curve") == 1 }

    /// A new key pair (`zmq_curve_keypair`), both keys as 40 characters of Z85.
    public static func keyPair() throws(ZeroMQError) -> (publicKey: String, secretKey: String) {
        var publicKey = [CChar](repeating: 0, count: 41)
        var secretKey = [CChar](repeating: 0, count: 41)
        guard zmq_curve_keypair(&publicKey, &secretKey) == 0 else {
            throw ZeroMQError.fromErrno(operation: "zmq_curve_keypair (is libzmq built with CURVE?)")
        }
        return (text(publicKey), text(secretKey))
    }

    /// The public key of a Z85 secret key (`zmq_curve_public`).
    public static func publicKey(ofSecret secretKey: String) throws(ZeroMQError) -> String {
        guard isKey(secretKey) else {
            throw ZeroMQError(
                errno: EINVAL, operation: "zmq_curve_public", message: "a secret key is 40 characters of Z85")
        }
        var publicKey = [CChar](repeating: 0, count: 41)
        guard zmq_curve_public(&publicKey, secretKey) == 0 else {
            throw ZeroMQError.fromErrno(operation: "zmq_curve_public")
        }
        return text(publicKey)
    }

    /// Whether `key` is 40 characters that decode as Z85 (32 bytes).
    public static func isKey(_ key: String) -> Bool {
        guard key.utf8.count == 40 else { return false }
        return decode(key) != nil
    }

    /// The 32 bytes of a Z85 key, or nil when it is not one.
    public static func decode(_ key: String) -> [UInt8]? {
        guard key.utf8.count == 40 else { return nil }
        var bytes = [UInt8](repeating: 0, count: 32)
        let ok = bytes.withUnsafeMutableBufferPointer { zmq_z85_decode($0.baseAddress, key) != nil }
        return ok ? bytes : nil
    }

    /// 32 bytes (a key as `User-Id` or ZAP credentials carry it) as 40 characters of Z85.
    public static func encode(_ bytes: [UInt8]) -> String? {
        guard bytes.count == 32 else { return nil }
        var text = [CChar](repeating: 0, count: 41)
        let ok = bytes.withUnsafeBufferPointer { zmq_z85_encode(&text, $0.baseAddress, 32) != nil }
        return ok ? Self.text(text) : nil
    }

    private static func text(_ characters: [CChar]) -> String {
        String(decoding: characters.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
