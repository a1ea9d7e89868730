import RowCastKit
import RowCastKitTesting
import Testing

/// Action roles and value types, and a Swift controller's `handle` exported as
/// `handle_action` (ABI 1 revision 2).
@Suite("Row actions and handle_action")
struct ActionExportTests {
    /// A profile row: a tap, an email edit, a toggle, a delete; `handle` returns changes.
    struct ProfileController: CellController {
        static let itemTypes = ["profile"]
        func model(from item: Item) throws(ItemError) -> String { try item.string("email") }
        func row(for model: String, item: Item) -> Row {
            Row(
                cell: "ProfileCell", height: 44, content: ["email": .string(model)],
                actions: [
                    .select(kind: "open"), .edit("edit_email", field: "email", value: .email),
                    .toggle("starred", field: "starred"), .delete(kind: "swipe"),
                ])
        }
        func handle(_ request: ActionRequest, model: String, item: Item) throws(ItemError) -> ActionResult {
            switch request.action {
            case "edit_email":
                ActionResult(
                    event: ["by": request.requester.map(JSONValue.string) ?? .null],
                    change: .update(["email": request.value ?? .null]))
            case "delete": ActionResult(event: ["kind": "deleted"], change: .delete)
            default: ActionResult(event: ["kind": "opened", "email": .string(model)])
            }
        }
    }

    @Test("roles are written only when not a tap, and read back; values are checked against them")
    func roles() throws {
        let row = try ControllerHarness<ProfileController>().row(id: "p", data: ["email": "a@b.example"])
        #expect(
            row.serialized()
                == Array(
                    #"{"cell":"ProfileCell","height":44,"content":{"email":"a@b.example"},"actions":[{"name":"select","kind":"open","params":{}},{"name":"edit_email","kind":"edit","params":{},"role":"edit","field":"email","valueType":"email"},{"name":"starred","kind":"toggle","params":{},"role":"toggle","field":"starred"},{"name":"delete","kind":"swipe","params":{},"role":"delete"}]}"#
                        .utf8))
        let parsed = try JSONParser.parse(row.serialized())["actions"]!.arrayValue!.map { action throws(ItemError) in
            try ActionRole(action: action.objectValue!)
        }
        #expect(parsed == row.actions.map(\.role))
        let edit = ActionRole.edit(field: "email", value: .email)
        #expect(edit.problem(with: "ann@example.com") == nil)
        #expect(edit.problem(with: "ann") != nil)
        #expect(edit.problem(with: 3) != nil)
        #expect(edit.problem(with: nil) != nil)
        #expect(ActionRole.toggle(field: "x").problem(with: nil) == nil)
        #expect(ActionRole.toggle(field: "x").problem(with: "on") != nil)
        #expect(ActionRole.select.problem(with: 1) == "a select action takes no value")
        #expect(ActionRole.custom.problem(with: ["any": 1]) == nil)
        #expect(ActionValueType.integer.problem(with: 4) == nil)
        #expect(ActionValueType.integer.problem(with: .number(JSONNumber(4.5))) != nil)
        #expect(ActionValueType.url.problem(with: "https://example.com/a") == nil)
        #expect(ActionValueType.url.problem(with: "example.com") != nil)
        #expect(ActionValueType.url.problem(with: "javascript:alert(1)") != nil)
        #expect(ActionValueType.url.problem(with: "data:text/html,x") != nil)
        #expect(throws: ItemError.self) { try ActionRole(action: ["role": "edit", "field": "email"]) }
        #expect(throws: ItemError.self) { try ActionRole(action: ["role": "swipe"]) }
    }

    @Test("handle_action returns the event and the change; select still returns the event alone")
    func export() {
        let exported = ExportedPlugin(
            RowCastPluginExport.descriptor(
                name: "kit-test-profile", version: "1", controllers: [ProfileController.self]))
        let item = #"{"id":"p","type":"profile","data":{"email":"a@b.example"}}"#
        #expect(
            exported.handleAction(
                #"{"feed":"f","id":"p","action":"edit_email","value":"c@d.example","requester":"app","item":\#(item)}"#)
                == .ok(["event": ["by": "app"], "update": ["email": "c@d.example"]]))
        #expect(
            exported.handleAction(#"{"feed":"f","id":"p","action":"delete","requester":null,"item":\#(item)}"#)
                == .ok(["event": ["kind": "deleted"], "delete": true]))
        #expect(
            exported.select(#"{"feed":"f","id":"p","action":"select","item":\#(item)}"#)
                == .ok(["kind": "opened", "email": "a@b.example"]))
    }
}
