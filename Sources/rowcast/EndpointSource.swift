import ArgumentParser
import Foundation
import RowCastJSON
import RowCastSupport

/// Where an endpoint comes from (its flag, else its environment variable, else the default)
/// and the check of its form, the same as rowcastd's (``EndpointSyntax``); also reads the
/// other ROWCAST_* variables (the CURVE keys).
enum EndpointSource {
    /// The process environment, read once.
    static let environment = ProcessInfo.processInfo.environment

    /// The value of the environment variable `name`, when set and not empty.
    static func variable(_ name: String) -> String? {
        environment[name].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The flag's value, else the variable's, else `fallback`.
    static func resolve(flag: String?, variable name: String, default fallback: String) -> String {
        flag ?? variable(name) ?? fallback
    }

    /// Throws when the endpoint in force (from the flag `name`, or `variable`) is not
    /// `transport://address`, naming where it came from.
    static func validate(flag: String?, name: String, variable: String) throws {
        if let flag {
            if let problem = EndpointSyntax.problem(with: flag) { throw ValidationError("\(name): \(problem)") }
        } else if let value = Self.variable(variable), let problem = EndpointSyntax.problem(with: value) {
            throw ValidationError("\(variable): \(problem)")
        }
    }
}
