import RowCastJSON

extension PluginTable {
    /// `plugins`, `types` and `refusals`, as the `plugins` reply lists them.
    public func pluginsDescription() -> JSONObject {
        let described: [JSONValue] = plugins.map { plugin in
            [
                "name": .string(plugin.name), "version": .string(plugin.version), "file": .string(plugin.file),
                "itemTypes": .array(plugin.itemTypes.map(JSONValue.string)),
                "headerTypes": .array(plugin.headerTypes.map(JSONValue.string)),
                "abiRevision": .number(Double(plugin.abiRevision)),
            ]
        }
        var types = JSONObject()
        for plugin in plugins {
            for type in plugin.itemTypes where self.plugin(forItemType: type) === plugin {
                types.append(
                    key: type,
                    value: [
                        "plugin": .string(plugin.name), "version": .string(plugin.version),
                        "file": .string(plugin.file),
                    ])
            }
        }
        let refused: [JSONValue] = refusals.map {
            ["file": .string($0.file), "code": .string($0.code.rawValue), "reason": .string($0.reason)]
        }
        return ["plugins": .array(described), "types": .object(types), "refusals": .array(refused)]
    }
}
