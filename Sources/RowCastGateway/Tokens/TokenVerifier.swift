import Foundation
import JWTKit

/// Verifies the gateway's user tokens (JWT, docs/PROTOCOL.md "User tokens") against the keys
/// it was given: HMAC secrets (HS256) and public keys from PEM files (ES256, RS256). Several
/// keys are accepted at once, so a key can be rotated without refusing tokens signed with the
/// old one. A token's `alg` header picks the keys it is checked against, so a token is never
/// checked with a key of another kind (`none` matches no key).
public struct TokenVerifier: Sendable {
    /// One key: its algorithm's JWT name, where it came from, and jwt-kit's collection of it.
    struct Key: Sendable {
        /// `HS256`, `ES256` or `RS256`.
        let algorithm: String
        /// The file it was read from, or a description, for messages.
        let source: String
        /// jwt-kit's verifier for it.
        let collection: JWTKeyCollection
    }

    /// The shortest HMAC secret accepted, in bytes (RFC 7518: at least the hash's size).
    public static let minimumSecretLength = 32

    /// The keys, in the order given.
    let keys: [Key]
    /// What a token's `aud` must name (one of its entries), when set.
    public private(set) var audience: String?
    /// What a token's `iss` must be, when set.
    public private(set) var issuer: String?

    /// A verifier with no keys (it refuses every token); add keys with the `adding` methods.
    public init() { keys = [] }

    private init(keys: [Key], audience: String?, issuer: String?) {
        self.keys = keys
        self.audience = audience
        self.issuer = issuer
    }

    /// This verifier, taking only tokens whose `aud` names `audience` and whose `iss` is
    /// `issuer` (nil or empty: that claim is not checked).
    public func requiring(audience: String?, issuer: String?) -> TokenVerifier {
        TokenVerifier(
            keys: keys, audience: audience.flatMap { $0.isEmpty ? nil : $0 },
            issuer: issuer.flatMap { $0.isEmpty ? nil : $0 })
    }

    /// The algorithms of its keys, for messages (`HS256, ES256`).
    public var algorithms: [String] { keys.map(\.algorithm) }

    /// Whether it has no key.
    public var isEmpty: Bool { keys.isEmpty }

    /// This verifier and an HS256 key of `secret` (at least ``minimumSecretLength`` bytes).
    public func adding(secret: [UInt8], source: String = "secret") async throws(TokenKeyError) -> TokenVerifier {
        guard secret.count >= Self.minimumSecretLength else {
            throw TokenKeyError(
                "\(source): an HS256 secret is at least \(Self.minimumSecretLength) bytes, this is \(secret.count); make one with: head -c 32 /dev/urandom | base64 > FILE"
            )
        }
        let collection = JWTKeyCollection()
        await collection.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
        return TokenVerifier(
            keys: keys + [Key(algorithm: "HS256", source: source, collection: collection)], audience: audience,
            issuer: issuer)
    }

    /// This verifier and the public key in `pem` (`BEGIN PUBLIC KEY`): a P-256 key verifies
    /// ES256, an RSA key (2048 bits or more) RS256.
    public func adding(
        publicKeyPEM pem: String, source: String = "public key"
    ) async throws(TokenKeyError)
        -> TokenVerifier
    {
        let collection = JWTKeyCollection()
        let algorithm: String
        if let key = try? ES256PublicKey(pem: pem) {
            await collection.add(ecdsa: key)
            algorithm = "ES256"
        } else if let key = try? Insecure.RSA.PublicKey(pem: pem) {
            await collection.add(rsa: key, digestAlgorithm: .sha256)
            algorithm = "RS256"
        } else {
            throw TokenKeyError(
                "\(source): not a PEM public key of P-256 (ES256) or RSA of 2048 bits or more (RS256); a private key or a certificate is not taken either"
            )
        }
        return TokenVerifier(
            keys: keys + [Key(algorithm: algorithm, source: source, collection: collection)], audience: audience,
            issuer: issuer)
    }

    /// A verifier of the keys in these files: each secret file holds an HS256 secret (its
    /// bytes, without a trailing newline), each public key file one PEM public key; tokens
    /// must name `audience` and `issuer` when they are given. Messages name a file with its
    /// setting in `flags`. Serving and `--check-config` both load keys with it, so a key
    /// refused here is refused there.
    public static func load(
        secretFiles: [String], publicKeyFiles: [String], audience: String? = nil, issuer: String? = nil,
        flags: TokenFlags = TokenFlags()
    ) async throws(TokenKeyError)
        -> TokenVerifier
    {
        var verifier = TokenVerifier().requiring(audience: audience, issuer: issuer)
        for path in secretFiles {
            var bytes = try read(path, flag: flags.secret)
            while let last = bytes.last, last == 0x0A || last == 0x0D { bytes.removeLast() }
            verifier = try await verifier.adding(secret: bytes, source: path)
        }
        for path in publicKeyFiles {
            let bytes = try read(path, flag: flags.publicKey)
            verifier = try await verifier.adding(publicKeyPEM: String(decoding: bytes, as: UTF8.self), source: path)
        }
        return verifier
    }

    /// The bytes of the file at `path` (at most 64 KiB).
    private static func read(_ path: String, flag: String) throws(TokenKeyError) -> [UInt8] {
        guard FileManager.default.fileExists(atPath: path) else {
            throw TokenKeyError("\(flag) \(path): no such file")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw TokenKeyError(
                "\(flag) \(path): cannot read the file (is it a directory, or not readable by this user?)")
        }
        guard data.count <= 65536 else { throw TokenKeyError("\(flag) \(path): larger than 64 KiB, not a key") }
        return Array(data)
    }

    /// The grant `token` carries, verified at `now`; else why it is refused.
    public func verify(_ token: String, now: Date = Date()) async throws(TokenRefusal) -> TokenGrant {
        let text = try TokenText(token)
        guard let algorithm = text.header["alg"]?.stringValue else { throw .invalid("its header has no \"alg\"") }
        let candidates = keys.filter { $0.algorithm == algorithm }
        guard !candidates.isEmpty else {
            throw .invalid(
                "it is signed with \(algorithm), and this gateway verifies \(Set(algorithms).sorted().joined(separator: ", "))"
            )
        }
        var verified = false
        for key in candidates {
            do {
                _ = try await key.collection.verify(token, as: SignatureOnly.self)
                verified = true
                break
            } catch {
                continue
            }
        }
        guard verified else { throw .invalid("its signature matches no key of this gateway") }
        return try TokenClaimsReader.grant(text.claims, now: now, audience: audience, issuer: issuer)
    }
}

/// A payload that decodes nothing: jwt-kit checks the signature; ``TokenClaimsReader`` reads
/// the claims, with refusals that name them.
struct SignatureOnly: JWTPayload {
    init() {}
    init(from decoder: any Decoder) throws {}
    func encode(to encoder: any Encoder) throws {}
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// A token key that cannot be used: the file and what is wrong with it.
public struct TokenKeyError: Error, Sendable, CustomStringConvertible {
    /// What is wrong, naming the file and the fix.
    public let message: String
    /// An error with `message`.
    public init(_ message: String) { self.message = message }
    /// The message.
    public var description: String { message }
}
