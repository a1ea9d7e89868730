import Foundation
import RowCastPluginHosting
import Testing

/// Plugin directories someone else could write to are refused as a whole, like plugin files.
@Suite("Plugin directory trust")
struct PluginDirectoryTrustTests {
    typealias Support = PluginTestSupport

    @Test("a group- or world-writable plugin directory is refused, naming it and the fix; other directories load")
    func writableDirectoryRefused() throws {
        try Support.withTemporaryDirectory { good in
            try Support.withTemporaryDirectory { bad in
                try Support.compile(
                    ["note_plugin.c"], into: good, as: "librowcast-b.so",
                    defines: [#"NOTE_NAME="b""#, #"NOTE_TYPE="b""#, #"NOTE_SECTION="b-section""#])
                try Support.compile(
                    ["note_plugin.c"], into: bad, as: "librowcast-a.so",
                    defines: [#"NOTE_NAME="a""#, #"NOTE_TYPE="a""#, #"NOTE_SECTION="a-section""#])
                for (mode, who) in [(0o775, "its group"), (0o757, "others"), (0o777, "its group and by others")] {
                    #expect(chmod(bad, mode_t(mode)) == 0)
                    let (loader, records) = Support.loader()
                    let registry = loader.load(directories: [bad, good])
                    #expect(registry.plugin(forItemType: "b") != nil)
                    #expect(registry.plugin(forItemType: "a") == nil, "a plugin loaded from \(bad) (mode \(mode))")
                    let refusal = try #require(registry.refusals.first)
                    #expect(refusal.file == bad)
                    #expect(refusal.code == .directoryInsecure)
                    #expect(
                        refusal.reason.contains("plugin directory \(bad) is writable by \(who)"), "\(refusal.reason)")
                    #expect(refusal.reason.contains("fix: chmod go-w \(bad)"))
                    #expect(records.messages(atLeast: .error).contains { $0.contains(bad) })
                }
                #expect(chmod(bad, 0o755) == 0)
                let registry = Support.loader().0.load(directories: [bad, good])
                #expect(registry.refusals.isEmpty && registry.plugin(forItemType: "a") != nil)
            }
        }
    }

    @Test(
        "a plugin directory owned by a user other than root or rowcastd's is refused with the chown that fixes it",
        .enabled(if: getuid() == 0, "needs root to give a directory away"))
    func foreignOwnerRefused() throws {
        try Support.withTemporaryDirectory { directory in
            try Support.compile(["note_plugin.c"], into: directory, as: "librowcast-note.so")
            #expect(chown(directory, 65534, 65534) == 0)
            let registry = Support.loader().0.load(directories: [directory])
            #expect(registry.plugins.isEmpty)
            let refusal = try #require(registry.refusals.first)
            #expect(refusal.code == .directoryInsecure)
            #expect(refusal.reason.contains("is owned by"))
            #expect(refusal.reason.contains("fix: chown root \(directory)"))
        }
    }
}
