import Foundation

/// The fenced `sh` blocks of a Markdown file of the repository, for tests that run a
/// document's commands as written (docs/TESTING.md, "Commands in the docs").
enum DocBlock {
    /// The text of every ```` ```sh ```` block of `document` (a path from the repository root), in order.
    static func shellBlocks(of document: String) throws -> [String] {
        let url = BuildProducts.repositoryRoot.appendingPathComponent(document)
        let text = try String(contentsOf: url, encoding: .utf8)
        var blocks: [String] = []
        var current: [Substring]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.drop { $0 == " " }
            if current == nil, trimmed.hasPrefix("```sh") {
                current = []
            } else if let lines = current, trimmed.hasPrefix("```") {
                blocks.append(lines.joined(separator: "\n") + "\n")
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    /// The one `sh` block of `document` that contains `text`.
    static func shellBlock(of document: String, containing text: String) throws -> String {
        let matches = try shellBlocks(of: document).filter { $0.contains(text) }
        guard matches.count == 1, let block = matches.first else {
            throw TestFailure("\(document) has \(matches.count) sh blocks containing \"\(text)\", not one")
        }
        return block
    }
}
