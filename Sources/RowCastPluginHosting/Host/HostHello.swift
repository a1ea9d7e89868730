import RowCastJSON

/// What a plugin host tells rowcastd once it has loaded its plugin: the descriptor's contents.
public struct HostHello: Sendable, Equatable {
    /// The plugin's name.
    public var name: String
    /// The plugin's version.
    public var version: String
    /// The item types it renders.
    public var itemTypes: [String]
    /// The section types whose headers it renders.
    public var headerTypes: [String]
    /// Whether it handles select actions.
    public var handlesSelect: Bool
    /// The ABI revision its descriptor covers (2: it has `handle_action`).
    public var abiRevision: Int
    /// The confinement the host put itself under.
    public var confinement: HostConfinement

    /// A hello from its parts.
    public init(
        name: String, version: String, itemTypes: [String], headerTypes: [String], handlesSelect: Bool,
        abiRevision: Int = 1, confinement: HostConfinement = HostConfinement()
    ) {
        self.name = name
        self.version = version
        self.itemTypes = itemTypes
        self.headerTypes = headerTypes
        self.handlesSelect = handlesSelect
        self.abiRevision = abiRevision
        self.confinement = confinement
    }

    /// The hello frame.
    public var frame: [UInt8] {
        let value: JSONValue = [
            "name": .string(name), "version": .string(version),
            "itemTypes": .array(itemTypes.map(JSONValue.string)),
            "headerTypes": .array(headerTypes.map(JSONValue.string)),
            "select": .bool(handlesSelect), "abiRevision": .number(Double(abiRevision)),
            "confinement": confinement.json,
        ]
        return [HostFrame.Tag.hello.rawValue] + value.serialized()
    }

    /// The hello in a frame's JSON (after its tag).
    public init(json: [UInt8]) throws(HostChannelError) {
        guard let object = (try? JSONParser.parse(json))?.objectValue,
            let name = object["name"]?.stringValue, let version = object["version"]?.stringValue,
            let itemTypes = object["itemTypes"]?.arrayValue, let headerTypes = object["headerTypes"]?.arrayValue,
            let select = object["select"], case .bool(let handlesSelect) = select
        else {
            throw HostChannelError("a hello that is not the descriptor object")
        }
        self.init(
            name: name, version: version, itemTypes: itemTypes.compactMap(\.stringValue),
            headerTypes: headerTypes.compactMap(\.stringValue), handlesSelect: handlesSelect,
            abiRevision: object["abiRevision"]?.numberValue.map { Int($0) } ?? 1,
            confinement: HostConfinement(json: object["confinement"]))
    }

    /// The refusal frame for `refusal`.
    public static func refusalFrame(_ refusal: PluginRefusal) -> [UInt8] {
        let value: JSONValue = ["code": .string(refusal.code.rawValue), "reason": .string(refusal.reason)]
        return [HostFrame.Tag.refused.rawValue] + value.serialized()
    }

    /// The refusal in a frame's JSON (after its tag), for `file`.
    public static func refusal(json: [UInt8], file: String) -> PluginRefusal {
        let object = (try? JSONParser.parse(json))?.objectValue
        return PluginRefusal(
            file: file,
            code: PluginRefusal.Code(rawValue: object?["code"]?.stringValue ?? "host_failed"),
            reason: object?["reason"]?.stringValue ?? "the plugin host refused the plugin without a reason"
        )
    }
}
