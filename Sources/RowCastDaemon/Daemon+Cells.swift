import Foundation
import Logging
import RowCastCells
import RowCastPluginHosting

/// Declarative cells beside the plugins: the renderer is the plugins' renderer, wrapped in a
/// ``DeclarativeRenderer`` when the cell directories hold any cell file.
extension Daemon {
    /// Loads the plugins (reusing what `previous` can lend) and the cell files of
    /// `configuration`, logging every refused cell file.
    func makeRenderer(_ configuration: DaemonConfiguration, previous: (any RowRendering)?) -> any RowRendering {
        makeRenderer(
            plugins: PluginScan(directories: configuration.pluginDirectories),
            cells: Self.loadCells(configuration.cellDirectories, logger: logger), previous: previous)
    }

    /// The cell files of `directories`; a directory that does not exist is logged to `logger`.
    static func loadCells(_ directories: [String], logger: Logger) -> CellCatalog {
        for directory in directories where !FileManager.default.fileExists(atPath: directory) {
            logger.warning(
                "cell directory does not exist; no cells are read from it", metadata: ["directory": "\(directory)"])
        }
        return CellCatalog.load(directories: directories)
    }

    /// Loads the plugin files `plugins` lists (reusing what `previous` can lend) beside the
    /// cells of `cells`, logging every refused cell file.
    func makeRenderer(
        plugins scan: PluginScan, cells catalog: CellCatalog, previous: (any RowRendering)?
    )
        -> any RowRendering
    {
        let plugins = loadRenderer(scan, Self.pluginRenderer(of: previous))
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
