/// Why a cell file was refused: the file, the line, the key at fault and what is wrong with it
/// (including what is allowed there). Shown as `articles.yaml:7: cells[0].fields.auther: ...`.
public struct CellFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file's path.
    public var file: String
    /// The line (1-based), when known.
    public var line: Int?
    /// The key path at fault (`cells[0].content.title`), empty for the whole file.
    public var key: String
    /// What is wrong and what is allowed.
    public var problem: String

    /// An error.
    public init(file: String, line: Int?, key: String, problem: String) {
        self.file = file
        self.line = line
        self.key = key
        self.problem = problem
    }

    /// `file:line: key: problem`.
    public var description: String {
        file + (line.map { ":\($0)" } ?? "") + ": " + (key.isEmpty ? "" : key + ": ") + problem
    }
}
