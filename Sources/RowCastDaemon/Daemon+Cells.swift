import Foundation
import RowCastCells
import RowCastPluginHosting

/// Declarative cells beside the plugins: the renderer is the plugins' renderer, wrapped in a
/// ``DeclarativeRenderer`` when the cell directories hold any cell file.
extension Daemon {
    /// Loads the plugins (reusing what `previous` can lend) and the cell files of
    /// `configuration`, logging every refused cell file.
    func makeRenderer(_ configuration: DaemonConfiguration, previous: (any RowRendering)?) -> any RowRendering {
        let plugins = loadRenderer(configuration.pluginDirectories, Self.pluginRenderer(of: previous))
        for directory in configuration.cellDirectories where !FileManager.default.fileExists(atPath: directory) {
            logger.warning(
                "cell directory does not exist; no cells are read from it", metadata: ["directory": "\(directory)"])
        }
        let catalog = CellCatalog.load(directories: configuration.cellDirectories)
        guard !catalog.definitions.isEmpty || !catalog.refusals.isEmpty else { return plugins }
        let renderer = DeclarativeRenderer(catalog: catalog, plugins: plugins)
        for refusal in renderer.catalog.refusals {
            logger.warning("cell file refused", metadata: ["reason": "\(refusal)"])
        }
        for definition in renderer.catalog.definitions {
            logger.info(
                "loaded cell",
                metadata: [
                    "cell": "\(definition.cell)", "file": "\(definition.file)",
                    "itemTypes": "\(definition.itemTypes.joined(separator: ","))",
                    "headerTypes": "\(definition.sectionTypes.joined(separator: ","))",
                ])
        }
        return renderer
    }

    /// The plugins' renderer inside `renderer` (itself when it has no cells).
    static func pluginRenderer(of renderer: (any RowRendering)?) -> (any RowRendering)? {
        (renderer as? DeclarativeRenderer)?.plugins ?? renderer
    }
}
