import Foundation
@testable import RowCastDaemon
import Testing
import ZeroMQ

/// The keys directory: one NAME.key per client; bad files are refused one by one, with why.
struct ClientKeyringTests {
    static func write(_ text: String, _ path: String) throws {
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    @Test(
        "names come from file names; zcert-style indentation and comments are read; bad files are refused each with its reason"
    )
    func loading() throws {
        let directory = try TemporaryDirectory()
        let alice = try Curve.keyPair()
        let bob = try Curve.keyPair()
        try Self.write(
            "# alice\ncurve\n    public-key = \"\(alice.publicKey)\"\nallow = \"read cars\"\n",
            directory.path + "/alice.key")
        try Self.write("public-key = \"\(alice.publicKey)\"\n", directory.path + "/copycat.key")
        try Self.write(
            "public-key = \"\(bob.publicKey)\"\nsecret-key = \"\(bob.secretKey)\"\n", directory.path + "/bob.key")
        try Self.write("public-key = \"short\"\n", directory.path + "/broken.key")
        try Self.write("public-key = \"\(bob.publicKey)\"\nallow = \"write cars\"\n", directory.path + "/typo.key")
        try Self.write("ignored", directory.path + "/notes.txt")

        let keyring = ClientKeyring.load(directory: directory.path)
        #expect(keyring.clientsByName.keys.sorted() == ["alice"])
        #expect(keyring.clientsByKey[alice.publicKey]?.name == "alice")
        #expect(keyring.clientsByName["alice"]?.allows(.read, feed: "cars") == true)
        #expect(keyring.clientsByName["alice"]?.allows(.read, feed: "payroll") == false)
        let problems = keyring.problems.joined(separator: "\n")
        #expect(problems.contains("copycat.key: the same public key as alice.key"))
        #expect(problems.contains("bob.key: holds a secret key"))
        #expect(problems.contains("broken.key: no public-key"))
        #expect(problems.contains("typo.key: allow = \"write cars\": \"write\" is not a permission"))
        #expect(keyring.problems.count == 4)
    }

    @Test("max_feeds in a key file is the client's feed quota; a value that is not a count refuses the file")
    func feedQuota() throws {
        let directory = try TemporaryDirectory()
        let tenant = try Curve.keyPair()
        let other = try Curve.keyPair()
        try Self.write(
            "public-key = \"\(tenant.publicKey)\"\nallow = \"all t-*\"\nmax_feeds = 25\n",
            directory.path + "/tenant.key")
        try Self.write(
            "public-key = \"\(other.publicKey)\"\nmax_feeds = \"lots\"\n", directory.path + "/other.key")
        let keyring = ClientKeyring.load(directory: directory.path)
        #expect(keyring.clientsByName["tenant"]?.maxFeeds == 25)
        #expect(KeyringAccess(keyring: keyring).feedQuota(of: "tenant") == 25)
        #expect(keyring.clientsByName["other"] == nil)
        #expect(keyring.problems.joined().contains("other.key: max_feeds = \"lots\": give a whole number"))
    }

    @Test("a missing keys directory admits nobody and says how to create it")
    func missingDirectory() {
        let keyring = ClientKeyring.load(directory: "/nonexistent/rowcast-clients")
        #expect(keyring.clientsByKey.isEmpty)
        #expect(keyring.problems.first?.contains("mkdir -m 0755 /nonexistent/rowcast-clients") == true)
    }

    @Test("the server key pair is generated once (0600, with server.pub), then read back; a mismatched pair is refused")
    func serverKey() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/curve/server.key"
        let first = try ServerKeyPair.loadOrCreate(path)
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(
            try String(contentsOfFile: directory.path + "/curve/server.pub", encoding: .utf8).contains(first.publicKey))
        #expect(try ServerKeyPair.loadOrCreate(path).publicKey == first.publicKey)

        let other = try Curve.keyPair()
        let mismatched = directory.path + "/mismatched.key"
        try Self.write("public-key = \"\(other.publicKey)\"\nsecret-key = \"\(first.secretKey)\"\n", mismatched)
        #expect(chmod(mismatched, 0o600) == 0)
        #expect(throws: KeyFileError.self) { try ServerKeyPair.load(mismatched) }
    }

    @Test("socket modes are octal up to 0777; only ipc:// endpoints with a path have a socket file")
    func socketPermissions() {
        #expect(SocketPermissions.parseMode("0660") == 0o660 && SocketPermissions.parseMode("600") == 0o600)
        #expect(
            SocketPermissions.parseMode("0668") == nil && SocketPermissions.parseMode("1777") == nil
                && SocketPermissions.parseMode("") == nil)
        #expect(SocketPermissions.socketPath(of: "ipc:///run/rowcast/control.sock") == "/run/rowcast/control.sock")
        #expect(
            SocketPermissions.socketPath(of: "ipc://@abstract") == nil
                && SocketPermissions.socketPath(of: "tcp://127.0.0.1:7702") == nil)
    }
}
