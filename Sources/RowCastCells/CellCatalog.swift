#if canImport(Glibc)
import Glibc
#endif

/// The declarative cells of a cells directory: every `*.yaml` / `*.yml` file in it, read in
/// name order. A file with an error is refused as a whole (with file:line, key and what is
/// allowed) and the others load; a file that claims a type an earlier file already claims is
/// refused too, naming that file.
public struct CellCatalog: Sendable {
    /// The definitions that loaded, in file order.
    public private(set) var definitions: [CellDefinition] = []
    /// The files that were refused, with why.
    public private(set) var refusals: [CellFileError] = []
    private var byItemType: [String: Int] = [:]
    private var bySectionType: [String: Int] = [:]

    /// An empty catalog.
    public init() {}

    /// The catalog of several directories, read in order: a type claimed in an earlier
    /// directory stays there.
    public static func load(directories: [String]) -> CellCatalog {
        var catalog = CellCatalog()
        for directory in directories { catalog.addFiles(of: directory) }
        return catalog
    }

    /// The catalog of `directory`; a directory that does not exist is an empty catalog (a
    /// directory that cannot be read is one refusal).
    public static func load(directory: String) -> CellCatalog {
        load(directories: [directory])
    }

    /// Adds the cell files of `directory`, in name order.
    private mutating func addFiles(of directory: String) {
        guard let dir = opendir(directory) else {
            if errno != ENOENT {
                refusals.append(
                    CellFileError(
                        file: directory, line: nil, key: "",
                        problem: "cannot read the cells directory: \(String(cString: strerror(errno)))"))
            }
            return
        }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if !name.hasPrefix("."), name.hasSuffix(".yaml") || name.hasSuffix(".yml") { names.append(name) }
        }
        closedir(dir)
        for name in names.sorted() {
            let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
            add(file: path)
        }
    }

    /// Reads and adds one file.
    public mutating func add(file path: String) {
        switch Self.readFile(path) {
        case .failure(let error): refusals.append(error)
        case .success(let text): add(text: text, file: path)
        }
    }

    /// Parses `text` as the file `file` and adds its definitions, or records why it was refused.
    public mutating func add(text: String, file: String) {
        let parsed: [CellDefinition]
        do {
            parsed = try CellFileParser(file: file).parse(text)
        } catch {
            refusals.append(error)
            return
        }
        var claimedItems: Set<String> = [], claimedSections: Set<String> = []
        for definition in parsed {
            for type in definition.itemTypes {
                if let owner = byItemType[type].map({ definitions[$0] })
                    ?? (claimedItems.contains(type) ? definition : nil)
                {
                    refusals.append(
                        CellFileError(
                            file: file, line: definition.line, key: "types",
                            problem:
                                "item type \"\(type)\" is already claimed by \(owner.file):\(owner.line); one type has one cell"
                        ))
                    return
                }
                claimedItems.insert(type)
            }
            for type in definition.sectionTypes {
                if let owner = bySectionType[type].map({ definitions[$0] })
                    ?? (claimedSections.contains(type) ? definition : nil)
                {
                    refusals.append(
                        CellFileError(
                            file: file, line: definition.line, key: "section_types",
                            problem:
                                "section type \"\(type)\" is already claimed by \(owner.file):\(owner.line); one type has one header cell"
                        ))
                    return
                }
                claimedSections.insert(type)
            }
        }
        for definition in parsed {
            let index = definitions.count
            definitions.append(definition)
            for type in definition.itemTypes { byItemType[type] = index }
            for type in definition.sectionTypes { bySectionType[type] = index }
        }
    }

    /// The definition that renders items of `type`.
    public func definition(forItemType type: String) -> CellDefinition? { byItemType[type].map { definitions[$0] } }

    /// The definition that renders the headers of sections of `type`.
    public func definition(forSectionType type: String) -> CellDefinition? {
        bySectionType[type].map { definitions[$0] }
    }

    /// Every item type the catalog renders.
    public var itemTypes: [String] { byItemType.keys.sorted() }

    /// Every section type whose headers it renders.
    public var sectionTypes: [String] { bySectionType.keys.sorted() }

    /// Drops a definition's claim on item type `type` (a plugin owns it), recording why.
    public mutating func yield(itemType type: String, to owner: String) {
        guard let index = byItemType.removeValue(forKey: type) else { return }
        let definition = definitions[index]
        refusals.append(
            CellFileError(
                file: definition.file, line: definition.line, key: "types",
                problem: "item type \"\(type)\" is rendered by the plugin \(owner); this cell is not used for it"))
    }

    /// The biggest cell file read: cell files are configuration, not data.
    static let maximumFileBytes = 1 << 20

    private static func readFile(_ path: String) -> Result<String, CellFileError> {
        guard let file = fopen(path, "rb") else {
            return .failure(
                CellFileError(
                    file: path, line: nil, key: "", problem: "cannot open: \(String(cString: strerror(errno)))"))
        }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count > 0 { bytes.append(contentsOf: buffer[0..<count]) }
            if bytes.count > maximumFileBytes {
                return .failure(
                    CellFileError(
                        file: path, line: nil, key: "",
                        problem: "larger than \(maximumFileBytes) bytes; a cell file describes cells, not data"))
            }
            if count < buffer.count { break }
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            return .failure(CellFileError(file: path, line: nil, key: "", problem: "not UTF-8 text"))
        }
        return .success(text)
    }
}
