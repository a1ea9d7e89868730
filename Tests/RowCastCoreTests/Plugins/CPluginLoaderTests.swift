import Foundation
import RowCastEngine
import RowCastPluginHosting
import RowCastStore
import Testing

/// A plugin written in plain C, built at test time, loaded and called through the ABI.
@Suite("C plugin loading")
struct CPluginLoaderTests {
    typealias Support = PluginTestSupport

    @Test("a C plugin loads and reports its name, version and types")
    func loadsCPlugin() throws {
        try Support.withTemporaryDirectory { directory in
            let file = try Support.compile(["note_plugin.c"], into: directory, as: "librowcast-note.so")
            let (loader, _) = Support.loader()
            let registry = loader.load(directories: [directory])

            #expect(registry.refusals.isEmpty)
            let plugin = try #require(registry.plugin(forItemType: "note"))
            #expect(plugin.name == "note")
            #expect(plugin.version == "0.1.0")
            #expect(plugin.file == file)
            #expect(plugin.loadedFrom.hasPrefix("/proc/self/fd/"))  // a private copy (PluginImage)
            #expect(plugin.itemTypes == ["note"])
            #expect(plugin.headerTypes == ["notes"])
            #expect(plugin.handlesSelect)
            #expect(plugin.rendersHeaders)
            #expect(registry.plugin(forHeaderType: "notes") === plugin)
            #expect(registry.plugin(forItemType: "notes") == nil)
            #expect(registry.plugins.count == 1)
            #expect(
                registry.typeEntries == [
                    PluginTypeEntry(type: "note", kind: .item, plugin: "note", version: "0.1.0", file: file),
                    PluginTypeEntry(type: "notes", kind: .header, plugin: "note", version: "0.1.0", file: file),
                ])
            #expect(
                registry.typeEntries[0].jsonValue.description
                    == #"{"type":"note","kind":"item","plugin":"note","version":"0.1.0","file":"\#(file)"}"#)
        }
    }

    @Test("render, item error, plugin error, header and select through the C ABI")
    func callsCPlugin() throws {
        try Support.withTemporaryDirectory { directory in
            try Support.compile(["note_plugin.c"], into: directory, as: "librowcast-note.so")
            let (loader, _) = Support.loader()
            let plugin = try #require(loader.load(directories: [directory]).plugin(forItemType: "note"))

            let row = plugin.renderItem(
                Support.bytes(#"{"id":"n1","type":"note","section":"s","data":{"text":"hello"}}"#))
            #expect(
                Support.okText(row)
                    == #"{"cell":"NoteCell","height":44,"content":{"text":"hello"},"actions":[{"name":"select","kind":"noted","params":{}}]}"#
            )

            let rejected = plugin.renderItem(Support.bytes(#"{"id":"n2","type":"note","data":{}}"#))
            #expect(
                rejected
                    == .rejected(
                        PluginCallError(message: #"missing field "text""#, field: "text", code: "missing_field")))

            let failed = plugin.renderItem(Support.bytes(#"{"id":"n3","type":"note","data":{"fail":true}}"#))
            #expect(
                failed == .failed(PluginCallError(message: "plugin note failed: disk on fire", code: "plugin_error")))

            let header = plugin.renderHeader(Support.bytes(#"{"id":"s","type":"notes","order":1,"header":{}}"#))
            #expect(Support.okText(header) == #"{"cell":"NoteHeader","height":28,"content":{}}"#)

            let event = plugin.select(
                Support.bytes(
                    #"{"feed":"f","id":"n1","action":"select","item":{"id":"n1","type":"note","data":{"text":"x"}}}"#))
            #expect(Support.okText(event) == #"{"kind":"noted"}"#)

            let silent = plugin.select(Support.bytes(#"{"feed":"f","id":"n1","action":"silent","item":{}}"#))
            #expect(Support.okText(silent) == "null")
        }
    }

    @Test("only librowcast-*.so regular files directly in the directory are loaded, in name order")
    func scansOnlyMatchingFiles() throws {
        try Support.withTemporaryDirectory { directory in
            try Support.compile(["note_plugin.c"], into: directory, as: "libother.so")
            try Support.compile(["note_plugin.c"], into: directory, as: "librowcast-.so")
            try Support.compile(["note_plugin.c"], into: directory, as: "librowcast-note.so.bak")
            try FileManager.default.createDirectory(
                atPath: directory + "/librowcast-dir.so", withIntermediateDirectories: false)
            try FileManager.default.createDirectory(atPath: directory + "/nested", withIntermediateDirectories: false)
            try Support.compile(["note_plugin.c"], into: directory + "/nested", as: "librowcast-nested.so")
            try Support.compile(
                ["note_plugin.c"], into: directory, as: "librowcast-b.so",
                defines: [#"NOTE_NAME="b""#, #"NOTE_TYPE="b""#, #"NOTE_SECTION="b-section""#])
            try Support.compile(
                ["note_plugin.c"], into: directory, as: "librowcast-a.so",
                defines: [#"NOTE_NAME="a""#, #"NOTE_TYPE="a""#])

            let (loader, _) = Support.loader()
            let registry = loader.load(directories: [directory + "/"])
            #expect(registry.refusals.isEmpty)
            #expect(registry.plugins.map(\.name) == ["a", "b"])
            #expect(registry.plugins.map(\.file) == [directory + "/librowcast-a.so", directory + "/librowcast-b.so"])
        }
        #expect(PluginLoader.isPluginFileName("librowcast-x.so"))
        #expect(!PluginLoader.isPluginFileName("librowcast-.so"))
        #expect(!PluginLoader.isPluginFileName("librowcast-x.so.1"))
        #expect(!PluginLoader.isPluginFileName("rowcast-x.so"))
    }

    @Test("a missing directory is a refusal and loading goes on")
    func missingDirectory() throws {
        try Support.withTemporaryDirectory { directory in
            try Support.compile(["note_plugin.c"], into: directory, as: "librowcast-note.so")
            let missing = directory + "/does-not-exist"
            let (loader, records) = Support.loader()
            let registry = loader.load(directories: [missing, directory])

            #expect(registry.plugins.map(\.name) == ["note"])
            let refusal = try #require(registry.refusals.first)
            #expect(registry.refusals.count == 1)
            #expect(refusal.file == missing)
            #expect(refusal.code == .directoryUnreadable)
            #expect(refusal.reason.contains("No such file or directory"))
            #expect(records.messages(atLeast: .warning).contains { $0.contains(missing) })
        }
    }

    @Test("a plugin built for ABI version 99 is refused, naming the file and both versions")
    func refusesOtherABIVersion() throws {
        try Support.withTemporaryDirectory { directory in
            let future = try Support.compile(["abi99_plugin.c"], into: directory, as: "librowcast-future.so")
            try Support.compile(["note_plugin.c"], into: directory, as: "librowcast-note.so")
            let (loader, records) = Support.loader()
            let registry = loader.load(directories: [directory])

            #expect(registry.plugins.map(\.name) == ["note"])
            let refusal = try #require(registry.refusals.first)
            #expect(refusal.file == future)
            #expect(refusal.code == .abiMismatch)
            #expect(refusal.description.hasPrefix("\(future): plugin ABI version 99, rowcastd speaks 1"))
            #expect(
                records.messages(atLeast: .error).contains {
                    $0.contains("\(future): plugin ABI version 99, rowcastd speaks 1")
                })
        }
    }

    @Test("a library without rowcast_plugin_entry is refused")
    func refusesMissingEntry() throws {
        try Support.withTemporaryDirectory { directory in
            let file = try Support.compile(["no_entry_plugin.c"], into: directory, as: "librowcast-noentry.so")
            let (loader, _) = Support.loader()
            let registry = loader.load(directories: [directory])
            #expect(registry.plugins.isEmpty)
            #expect(registry.refusals.map(\.file) == [file])
            #expect(registry.refusals.first?.code == .missingEntry)
            #expect(registry.refusals.first?.reason.contains("does not export rowcast_plugin_entry") == true)
        }
    }

    @Test("a file that is not a shared library is refused with dlopen's message")
    func refusesNonLibrary() throws {
        try Support.withTemporaryDirectory { directory in
            let file = directory + "/librowcast-garbage.so"
            try Data("this is not an ELF file\n".utf8).write(to: URL(fileURLWithPath: file))
            let (loader, _) = Support.loader()
            let registry = loader.load(directories: [directory])
            #expect(registry.plugins.isEmpty)
            let refusal = try #require(registry.refusals.first)
            #expect(refusal.file == file)
            #expect(refusal.code == .openFailed)
            #expect(refusal.reason.contains("cannot load the shared library"))
            #expect(refusal.reason.contains("librowcast-garbage.so"))  // dlerror names the file
        }
    }

    @Test("two plugins claiming one type: the second is refused, naming both plugins and files")
    func refusesDuplicateType() throws {
        try Support.withTemporaryDirectory { directory in
            let first = try Support.compile(
                ["note_plugin.c"], into: directory, as: "librowcast-alpha.so",
                defines: [#"NOTE_NAME="alpha""#, #"NOTE_TYPE="shared""#])
            let second = try Support.compile(
                ["note_plugin.c"], into: directory, as: "librowcast-beta.so",
                defines: [#"NOTE_NAME="beta""#, #"NOTE_TYPE="shared""#])
            let (loader, records) = Support.loader()
            let registry = loader.load(directories: [directory])

            #expect(registry.plugins.map(\.name) == ["alpha"])
            #expect(registry.plugin(forItemType: "shared")?.name == "alpha")
            let refusal = try #require(registry.refusals.first)
            #expect(refusal.file == second)
            #expect(refusal.code == .duplicateType)
            #expect(refusal.reason.contains("plugin beta (\(second))"))
            #expect(refusal.reason.contains("already claimed by plugin alpha (\(first))"))
            #expect(refusal.reason.contains(#"item type "shared""#))
            #expect(records.messages(atLeast: .error).contains { $0.contains("already claimed by plugin alpha") })
        }
    }

    @Test("two plugins with one name: the second is refused")
    func refusesDuplicateName() throws {
        try Support.withTemporaryDirectory { directory in
            let first = try Support.compile(
                ["note_plugin.c"], into: directory, as: "librowcast-one.so", defines: [#"NOTE_TYPE="one""#])
            let second = try Support.compile(
                ["note_plugin.c"], into: directory, as: "librowcast-two.so", defines: [#"NOTE_TYPE="two""#])
            let (loader, _) = Support.loader()
            let registry = loader.load(directories: [directory])
            #expect(registry.plugins.map(\.file) == [first])
            #expect(registry.refusals.map(\.code) == [.duplicateName])
            #expect(
                registry.refusals.first?.reason
                    == "plugin note is already loaded from \(first); remove one of the two files")
            #expect(registry.refusals.first?.file == second)
        }
    }

    @Test("invalid plugin output is a failure, never a crash")
    func invalidOutput() throws {
        try Support.withTemporaryDirectory { directory in
            try Support.compile(["bad_output_plugin.c"], into: directory, as: "librowcast-broken.so")
            let (loader, _) = Support.loader()
            let plugin = try #require(loader.load(directories: [directory]).plugin(forItemType: "broken"))

            func failure(_ mode: String) -> PluginCallError? {
                if case .failed(let error) = plugin.renderItem(
                    Support.bytes(#"{"id":"x","type":"broken","data":{"mode":"\#(mode)"}}"#))
                {
                    return error
                }
                return nil
            }
            let truncated = try #require(failure("truncated"))
            #expect(truncated.message == "plugin broken returned invalid JSON: unexpected end of input at byte 26")
            #expect(truncated.code == "invalid_output")
            #expect(failure("nocell")?.message == #"plugin broken returned a row without "cell""#)
            #expect(failure("huge")?.code == "output_too_large")
            #expect(failure("status")?.message == "plugin broken returned unknown status 7")

            // As a plugin host calls it: the output goes after what the buffer holds, and an
            // overflow is counted from where this call's output began.
            var output = Support.bytes("kept")
            let input = Support.bytes(#"{"id":"x","type":"broken","data":{"mode":"nocell"}}"#)
            let raw = input.withUnsafeBytes { plugin.rawCall(.renderItem, $0, appendingTo: &output) }
            #expect(raw?.status == 0 && raw?.overflowed == false)
            #expect(String(decoding: output, as: UTF8.self) == #"kept{"height":1,"content":{}}"#)
            output = Array(repeating: UInt8(ascii: "x"), count: LoadedPlugin.maximumOutputSize - 1)
            let huge = Support.bytes(#"{"id":"x","type":"broken","data":{"mode":"huge"}}"#)
            let overflow = huge.withUnsafeBytes { plugin.rawCall(.renderItem, $0, appendingTo: &output) }
            #expect(overflow?.overflowed == true)
            #expect(output.count == LoadedPlugin.maximumOutputSize - 1 + 16 << 20)

            let garbage = plugin.renderItem(Support.bytes(#"{"data":{"mode":"garbage-error"}}"#))
            #expect(garbage == .rejected(PluginCallError(message: "(unparsable error output: not json at all)")))

            guard case .failed(let event) = plugin.select(Support.bytes("{}")) else {
                Issue.record("an array is not an event")
                return
            }
            #expect(event.message == "plugin broken returned an event that is not a JSON object or null (got array)")
            #expect(!plugin.rendersHeaders)
            #expect(
                plugin.renderHeader(Support.bytes("{}"))
                    == .failed(
                        PluginCallError(message: "plugin broken renders no section headers", code: "unsupported")))
        }
    }

    @Test(
        "malformed descriptors are refused with what is wrong",
        arguments: [
            (1, "render_item is NULL"),
            (2, "declares no item types"),
            (3, "the plugin name is NULL, empty or not UTF-8"),
            (4, "struct_size is 16 bytes, ABI version 1 needs at least 88"),
            (5, "returned NULL"),
            (6, "declares section types but render_header is NULL"),
            (7, #"lists item type "defective" twice"#),
        ])
    func refusesBadDescriptor(defect: Int, reason: String) throws {
        try Support.withTemporaryDirectory { directory in
            let file = try Support.compile(
                ["bad_descriptor_plugin.c"], into: directory, as: "librowcast-defective.so",
                defines: ["DEFECT=\(defect)"])
            let (loader, _) = Support.loader()
            let registry = loader.load(directories: [directory])
            #expect(registry.plugins.isEmpty)
            let refusal = try #require(registry.refusals.first)
            #expect(refusal.file == file)
            #expect(refusal.code == .invalidDescriptor)
            #expect(refusal.reason.contains(reason), "\(refusal.reason)")
        }
    }
}

/// Plugin files someone else could have written are refused like any other bad file.
@Suite("Plugin file trust")
struct PluginFileTrustTests {
    typealias Support = PluginTestSupport

    @Test("a group- or world-writable plugin file is refused, naming the file and the fix; the others load")
    func writableRefused() throws {
        try Support.withTemporaryDirectory { directory in
            let bad = try Support.compile(
                ["note_plugin.c"], into: directory, as: "librowcast-a.so",
                defines: [#"NOTE_NAME="a""#, #"NOTE_TYPE="a""#, #"NOTE_SECTION="a-section""#])
            try Support.compile(
                ["note_plugin.c"], into: directory, as: "librowcast-b.so",
                defines: [#"NOTE_NAME="b""#, #"NOTE_TYPE="b""#, #"NOTE_SECTION="b-section""#])
            for (mode, who) in [(0o775, "its group"), (0o757, "others"), (0o777, "its group and by others")] {
                #expect(chmod(bad, mode_t(mode)) == 0)
                let (loader, records) = Support.loader()
                let registry = loader.load(directories: [directory])
                #expect(registry.plugin(forItemType: "b") != nil)
                #expect(registry.plugin(forItemType: "a") == nil)
                let refusal = try #require(registry.refusals.first)
                #expect(refusal.file == bad)
                #expect(refusal.code == .fileInsecure)
                #expect(refusal.reason.contains("is writable by \(who)"), "\(refusal.reason)")
                #expect(refusal.reason.contains("fix: chmod go-w \(bad)"))
                #expect(records.messages(atLeast: .error).contains { $0.contains(bad) })
            }
        }
    }

    @Test(
        "a plugin file owned by a user other than root or rowcastd's is refused",
        .enabled(if: getuid() == 0, "needs root to give a file away"))
    func foreignOwnerRefused() throws {
        try Support.withTemporaryDirectory { directory in
            let file = try Support.compile(["note_plugin.c"], into: directory, as: "librowcast-note.so")
            #expect(chown(file, 65534, 65534) == 0)
            let registry = Support.loader().0.load(directories: [directory])
            #expect(registry.plugins.isEmpty)
            let refusal = try #require(registry.refusals.first)
            #expect(refusal.code == .fileInsecure)
            #expect(refusal.reason.contains("is owned by"))
            #expect(refusal.reason.contains("fix: chown root \(file)"))
        }
    }
}
