import Foundation
import RowCastClient
import RowCastSupport

/// The plugin SDK `rowcast plugin new` builds a plugin on: the Swift package a Swift plugin
/// depends on by path, and the C header a C plugin gets a copy of. Found without a network and
/// without an install step: `--sdk`, else the installed one beside `rowcast`
/// (`PREFIX/share/rowcast/sdk`), else the `SDK/` folder of the source tree `rowcast` was built in.
struct PluginSDK {
    /// The SDK package's directory, absolute.
    let path: String
    /// Where it was found, for the line `rowcast plugin new` prints.
    let origin: String

    /// The C header, inside the SDK package.
    var header: String { path + "/Sources/CRowCastPlugin/include/rowcast_plugin.h" }

    /// How many folders above its own directory `rowcast` looks for the source tree's `SDK/`:
    /// `.build/debug` resolves to `.build/<triple>/debug`, three levels below the tree.
    static let sourceTreeDepth = 3

    /// The SDK given with `--sdk` (`given`), or the first one found beside `rowcast`.
    static func locate(given: String?) throws(RowCastClientError) -> PluginSDK {
        if let given {
            let path = PluginNewCommand.absolute(given)
            guard isSDK(path) else {
                throw RowCastClientError(
                    code: "invalid_request",
                    message:
                        "--sdk \(given): \(path) holds no RowCast plugin SDK (a Package.swift naming RowCastSDK and Sources/CRowCastPlugin/include/rowcast_plugin.h)"
                )
            }
            return PluginSDK(path: path, origin: "--sdk")
        }
        guard let directory = ExecutableLocation.directory() else {
            throw RowCastClientError(
                code: "invalid_request", message: "cannot read rowcast's own location (/proc/self/exe); give --sdk DIR")
        }
        for candidate in candidates(beside: directory) where isSDK(candidate.path) {
            return candidate
        }
        let looked = candidates(beside: directory).map(\.path).joined(separator: ", ")
        throw RowCastClientError(
            code: "invalid_request",
            message:
                "no plugin SDK found beside rowcast (looked in \(looked)); run a rowcast built in a RowCast checkout, install the SDK (make install-sdk), or give its directory with --sdk DIR (the SDK/ folder of a checkout)"
        )
    }

    /// Where an SDK may be for a `rowcast` in `directory`, in the order they are tried.
    static func candidates(beside directory: String) -> [PluginSDK] {
        var found = [
            PluginSDK(
                path: PluginNewCommand.absolute(directory + "/../share/rowcast/sdk"), origin: "installed beside rowcast"
            )
        ]
        var folder = directory
        for _ in 0...sourceTreeDepth {
            found.append(
                PluginSDK(
                    path: PluginNewCommand.absolute(folder + "/SDK"), origin: "the source tree rowcast was built in"))
            folder = PluginNewCommand.absolute(folder + "/..")
        }
        return found
    }

    /// Whether `path` holds the SDK package: its manifest names RowCastSDK, and the C header is there.
    static func isSDK(_ path: String) -> Bool {
        guard let manifest = try? String(contentsOfFile: path + "/Package.swift", encoding: .utf8) else { return false }
        return manifest.contains("name: \"RowCastSDK\"")
            && FileManager.default.fileExists(atPath: path + "/Sources/CRowCastPlugin/include/rowcast_plugin.h")
    }

    /// The C header's text, for a copy beside a C plugin's source.
    func headerText() throws(RowCastClientError) -> String {
        guard let text = try? String(contentsOfFile: header, encoding: .utf8) else {
            throw RowCastClientError(code: "invalid_request", message: "cannot read the plugin header \(header)")
        }
        return text
    }
}
