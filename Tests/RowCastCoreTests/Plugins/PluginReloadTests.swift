import Foundation
import RowCastEngine
import RowCastPluginHosting
import RowCastStore
import Testing

/// Reloading: unchanged files are reused, changed ones loaded anew although glibc would hand
/// back the old mapping for the same path.
@Suite("Plugin reload")
struct PluginReloadTests {
    typealias Support = PluginTestSupport

    @Test("an unchanged file reuses the loaded plugin; a replaced file is loaded anew")
    func reloadReusesOrReplaces() throws {
        try Support.withTemporaryDirectory { directory in
            let file = try Support.compile(["note_plugin.c"], into: directory, as: "librowcast-note.so")
            let (loader, _) = Support.loader()
            let first = loader.load(directories: [directory])
            let original = try #require(first.plugin(forItemType: "note"))

            let second = loader.load(directories: [directory], reusing: first)
            #expect(second.plugin(forItemType: "note") === original)

            // Replace the file the way an installer does: write elsewhere, rename over it.
            let staging = directory + "/staging"
            try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: false)
            let rebuilt = try Support.compile(
                ["note_plugin.c"], into: staging, as: "librowcast-note.so", defines: [#"NOTE_VERSION="0.2.0""#])
            #expect(rename(rebuilt, file) == 0)

            let third = loader.load(directories: [directory], reusing: second)
            let replacement = try #require(third.plugin(forItemType: "note"))
            #expect(replacement !== original)
            #expect(replacement.version == "0.2.0")
            #expect(replacement.file == file)
            #expect(replacement.loadedFrom.hasPrefix("/proc/self/fd/"))  // a private copy in memory
            #expect(third.refusals.isEmpty)

            // The old plugin is still mapped and still works.
            #expect(original.version == "0.1.0")
            let input = Support.bytes(#"{"id":"n","type":"note","data":{"text":"still here"}}"#)
            #expect(Support.okText(original.renderItem(input))?.contains("still here") == true)
            #expect(Support.okText(replacement.renderItem(input))?.contains("still here") == true)
        }
    }

    @Test("loading a file twice without reuse gives two independent instances")
    func loadsTwice() throws {
        try Support.withTemporaryDirectory { directory in
            let file = try Support.compile(["note_plugin.c"], into: directory, as: "librowcast-note.so")
            let (loader, _) = Support.loader()
            let first = try #require(loader.load(directories: [directory]).plugin(forItemType: "note"))
            let second = try #require(loader.load(directories: [directory]).plugin(forItemType: "note"))
            #expect(first !== second)
            #expect(first.loadedFrom != second.loadedFrom)
            #expect(first.file == file)
            #expect(second.file == file)
        }
    }
}
