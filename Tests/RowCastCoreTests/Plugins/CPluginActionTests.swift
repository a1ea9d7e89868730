import Foundation
import RowCastEngine
import RowCastPluginHosting
import RowCastStore
import RowCastKit
import Testing

/// ABI 1 revision 2 (`handle_action`) from C, and revision 1 plugins loading unchanged.
@Suite("C plugin actions")
struct CPluginActionTests {
    typealias Support = PluginTestSupport

    static let profile = #"{"id":"p1","type":"profile","data":{"name":"Ann","email":"a@example.com"}}"#

    @Test("a revision 2 C plugin declares action roles and returns an update or a delete from handle_action")
    func revisionTwo() throws {
        try Support.withTemporaryDirectory { directory in
            try Support.compile(["profile_plugin.c"], into: directory, as: "librowcast-profile.so")
            let (loader, _) = Support.loader()
            let registry = loader.load(directories: [directory])
            #expect(registry.refusals.isEmpty)
            let plugin = try #require(registry.plugin(forItemType: "profile"))
            #expect(plugin.abiRevision == 2)
            #expect(plugin.returnsChanges)
            let row = try #require(Support.okText(plugin.renderItem(Support.bytes(Self.profile))))
            let actions = try JSONParser.parse(Array(row.utf8))["actions"]?.arrayValue ?? []
            #expect(
                try actions.compactMap(\.objectValue).map { try ActionRole(action: $0) }
                    == [.select, .edit(field: "email", value: .email), .toggle(field: "starred"), .delete])

            let edit =
                #"{"feed":"f","id":"p1","action":"edit_email","value":"b@example.com","requester":"app","item":\#(Self.profile)}"#
            #expect(
                Support.okText(plugin.handleAction(Support.bytes(edit)))
                    == #"{"event":{"kind":"email_changed","email":"b@example.com"},"update":{"email":"b@example.com"}}"#
            )
            let delete = #"{"feed":"f","id":"p1","action":"delete","requester":null,"item":\#(Self.profile)}"#
            #expect(
                Support.okText(plugin.handleAction(Support.bytes(delete)))
                    == #"{"event":{"kind":"deleted"},"delete":true}"#)
            let unknown = #"{"feed":"f","id":"p1","action":"buy","requester":null,"item":\#(Self.profile)}"#
            #expect(
                plugin.handleAction(Support.bytes(unknown))
                    == .rejected(PluginCallError(message: "unknown action", field: "action", code: "unknown_action")))
        }
    }

    @Test("a plugin built against the revision 1 header loads unchanged; its select's event comes back with no change")
    func revisionOneStillLoads() throws {
        try Support.withTemporaryDirectory { directory in
            let header = Support.fixtures.appendingPathComponent("abi-r1")
            try Support.compile(["note_plugin.c"], into: directory, as: "librowcast-note.so", include: header)
            let (loader, _) = Support.loader()
            let registry = loader.load(directories: [directory])
            #expect(registry.refusals.isEmpty)
            let plugin = try #require(registry.plugin(forItemType: "note"))
            #expect(plugin.abiRevision == 1)
            #expect(!plugin.returnsChanges)
            #expect(plugin.handlesSelect)
            let request =
                #"{"feed":"f","id":"n1","action":"select","requester":null,"item":{"id":"n1","type":"note","data":{"text":"x"}}}"#
            #expect(Support.okText(plugin.handleAction(Support.bytes(request))) == #"{"event":{"kind":"noted"}}"#)
            #expect(Support.okText(plugin.select(Support.bytes(request))) == #"{"kind":"noted"}"#)
        }
    }
}
