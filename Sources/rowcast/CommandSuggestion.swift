import ArgumentParser

/// Catches a mistyped subcommand before the argument parser does (it would complain about the
/// first option instead, "Unknown option '--feed'") and suggests the closest command.
enum CommandSuggestion {
    /// The problem with the subcommand words at the start of `arguments` ("unknown command
    /// 'snapsot'; did you mean 'snapshot'?"), or nil when they name commands (or there are none).
    static func problem(in arguments: [String], root: any ParsableCommand.Type) -> String? {
        var command = root
        for argument in arguments {
            guard !argument.hasPrefix("-") else { return nil }
            let subcommands = command.configuration.subcommands
            guard !subcommands.isEmpty else { return nil }
            if let next = subcommands.first(where: { $0._commandName == argument }) {
                command = next
                continue
            }
            // A command with a default subcommand takes its arguments; none of ours takes words.
            let names =
                subcommands.map { $0._commandName }
                + (ObjectIdentifier(command) == ObjectIdentifier(root) ? ["help"] : [])
            guard !names.contains(argument) else { return nil }
            var message = "unknown command '\(argument)'"
            if let closest = closest(to: argument, among: names) {
                message += "; did you mean '\(closest)'?"
            } else {
                message += "; the commands are \(names.joined(separator: ", "))"
            }
            return message
        }
        return nil
    }

    /// The name nearest to `word` in edit distance, when it is near enough to be a typo: at
    /// most a third of the word's length (at least 2) away, or `word` is its prefix.
    static func closest(to word: String, among names: [String]) -> String? {
        let scored = names.map { (name: $0, distance: distance(word, $0)) }
        guard let best = scored.min(by: { $0.distance < $1.distance }) else { return nil }
        if best.distance <= max(2, word.count / 3) { return best.name }
        let prefixed = names.filter { word.count >= 3 && $0.hasPrefix(word) }
        return prefixed.count == 1 ? prefixed[0] : nil
    }

    /// The Levenshtein distance between two words (insertions, deletions, substitutions).
    static func distance(_ lhs: String, _ rhs: String) -> Int {
        let a = Array(lhs), b = Array(rhs)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
