@testable import RowCastPluginHosting
import Testing

/// The renderer identity the store keeps per type: text without U+0000.
struct RendererIdentityTests {
    /// A plugin as a host's hello may describe it: any name and version.
    final class Described: RegisteredPlugin {
        let name: String
        let version: String
        let file = "/plugins/librowcast-x.so"
        let itemTypes = ["x"]
        let headerTypes: [String] = []
        let fileIdentity: PluginFileIdentity
        let abiRevision = 1
        var rendererIdentity: String { fileIdentity.rendererIdentity(name: name, version: version, file: file) }

        init(name: String, version: String) throws {
            self.name = name
            self.version = version
            fileIdentity = try #require(PluginFileIdentity.of(#filePath))
        }
    }

    @Test("a name or version with U+0000 gives an identity with U+FFFD in its place")
    func identityWithoutNUL() throws {
        let identity = try Described(name: "n\u{0}", version: "1\u{0}0").rendererIdentity
        #expect(identity.hasPrefix("n\u{FFFD}@1\u{FFFD}0@/plugins/librowcast-x.so@"), "\(identity)")
        #expect(!identity.contains("\u{0}"))
        #expect(try Described(name: "n", version: "1").rendererIdentity.hasPrefix("n@1@/plugins/librowcast-x.so@"))
    }
}
