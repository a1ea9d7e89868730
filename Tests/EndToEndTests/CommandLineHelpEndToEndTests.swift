import Foundation
import RowCastJSON
import RowCastSupport
import RowCastTesting
import Testing

/// `rowcast` without a daemon: each subcommand's help lists only the options it uses,
/// --version, suggestions for a mistyped command, and endpoints checked as rowcastd checks them.
@Suite struct CommandLineHelpEndToEndTests {
    /// A subcommand (its words) and which endpoint flags its help must and must not list.
    struct HelpCase: CustomStringConvertible, Sendable {
        let command: [String]
        let endpoints: Set<String>
        /// Options besides the endpoints that its help lists.
        let others: [String]
        var description: String { command.joined(separator: " ") }
    }

    static let connection = ["--server-key <key-or-file>", "--key <file>", "--timeout <seconds>"]

    static let cases: [HelpCase] = [
        HelpCase(
            command: ["publish"], endpoints: ["control", "ingest"],
            others: connection + ["--feed <feed>", "--sort <number>", "--order <number>", "--no-ack"]),
        HelpCase(
            command: ["subscribe"], endpoints: ["publish", "control"],
            others: connection + ["--replica", "--until-seq <seq>"]),
        HelpCase(
            command: ["snapshot"], endpoints: ["control"],
            others: connection + ["--feed <feed>", "--allow-missing", "--state"]),
        HelpCase(command: ["status"], endpoints: ["control"], others: connection + ["--json"]),
        HelpCase(command: ["plugins"], endpoints: ["control"], others: connection + ["--json"]),
        HelpCase(
            command: ["select"], endpoints: ["control"],
            others: connection + ["--feed <feed>", "--id <id>", "--action <action>", "--value <value>"]),
        HelpCase(
            command: ["events"], endpoints: ["control"],
            others: connection + ["--feed <feed>", "--after <seq>", "--follow"]),
        HelpCase(
            command: ["locate"], endpoints: ["control"], others: connection + ["--feed <feed>", "--id <id>", "--json"]),
        HelpCase(command: ["reload"], endpoints: ["control"], others: connection + ["--json"]),
        HelpCase(command: ["quarantine", "list"], endpoints: ["control"], others: connection + ["--feed <feed>"]),
        HelpCase(
            command: ["quarantine", "retry"], endpoints: ["control"],
            others: connection + ["--feed <feed>", "--id <id>"]),
        HelpCase(
            command: ["watch"], endpoints: ["publish", "control"], others: connection + ["--feed <feed>", "--once"]),
        HelpCase(
            command: ["serve"], endpoints: ["control", "publish"],
            others: connection + [
                "--http <host:port>", "--connection-buffer <messages>", "--history <deltas>", "--allowed-host <name>",
                "--allowed-origin <origin>", "--image-origin <origin>", "--header-timeout <seconds>",
                "--idle-timeout <seconds>", "--write-timeout <seconds>", "--max-connections-per-peer <connections>",
            ]),
        HelpCase(command: ["keygen"], endpoints: [], others: ["--directory <dir>"]),
        HelpCase(command: ["plugin", "new"], endpoints: [], others: ["--c", "--directory <dir>", "--sdk <dir>"]),
        HelpCase(
            command: ["plugin", "check"], endpoints: [], others: ["--in-process", "--plugin-host <path>", "--json"]),
        HelpCase(
            command: ["plugin", "render"], endpoints: [],
            others: [
                "--item <path>", "--section <path>", "--in-process", "--plugin-host <path>", "--plugin-timeout <ms>",
            ]),
    ]

    @Test("each subcommand's --help lists the endpoints it uses and no other", arguments: cases)
    func helpListsOnlyUsedOptions(_ help: HelpCase) throws {
        let run = try CommandRunner.run(help.command + ["--help"])
        #expect(run.process.terminationStatus == 0, "\(run.stderr)")
        let text = run.stdout
        for socket in ["control", "publish", "ingest"] {
            let option = "--\(socket) <endpoint>"
            if help.endpoints.contains(socket) {
                #expect(text.contains(option), "\(help): --help lacks \(option):\n\(text)")
                #expect(
                    text.contains("[env: ROWCAST_\(socket.uppercased())]"),
                    "\(help): \(option) does not name its variable")
            } else {
                #expect(!text.contains(option), "\(help): --help lists \(option), which it does not use:\n\(text)")
            }
        }
        for option in help.others {
            #expect(text.contains(option), "\(help): --help lacks \(option):\n\(text)")
        }
        if help.endpoints.isEmpty {
            for option in Self.connection { #expect(!text.contains(option), "\(help) lists \(option)") }
        }
        // A backslash ends a line only in a shell example (a command continued on the next line).
        for line in text.split(separator: "\n") where line.hasSuffix("\\") {
            let start = line.drop { $0 == " " }
            #expect(start.hasPrefix("rowcast ") || start.hasPrefix("--"), "\(help): a stray backslash: \(line)")
        }
    }

    @Test("rowcast --version prints the version rowcastd --version prints")
    func version() throws {
        let run = try CommandRunner.run(["--version"])
        #expect(run.process.terminationStatus == 0)
        #expect(run.stdout == RowCastVersion.current + "\n")
        let daemon = try ProgramRun.run(try BuildProducts.path("rowcastd"), ["--version"])
        #expect(daemon.output == run.stdout)
    }

    @Test(
        "a mistyped subcommand is named, with the closest command suggested, exit status 64",
        arguments: [
            (["snapsot", "--feed", "x"], "unknown command 'snapsot'; did you mean 'snapshot'?"),
            (["publsh"], "unknown command 'publsh'; did you mean 'publish'?"),
            (["quarantine", "retyr"], "unknown command 'retyr'; did you mean 'retry'?"),
            (["frobnicate"], "unknown command 'frobnicate'; the commands are publish, subscribe, watch, snapshot"),
        ])
    func unknownCommand(_ arguments: [String], _ message: String) throws {
        let run = try CommandRunner.run(arguments)
        #expect(run.process.terminationStatus == 64)
        #expect(run.stderr.contains(message), "\(run.stderr)")
        #expect(!run.stderr.contains("Unknown option"))
    }

    @Test(
        "rowcast serve refuses an --http that is not HOST:PORT, naming it, exit status 64",
        arguments: [
            ("nope", "--http nope: give HOST:PORT"),
            ("127.0.0.1:99999", "the port must be a number from 0 to 65535"),
            (":8080", "the host is missing"),
            ("ipc:///tmp/rowcast-http", "rowcast serve listens on TCP only (ipc:// is not served)"),
            ("tcp://127.0.0.1", "--http tcp://127.0.0.1: give HOST:PORT"),
        ])
    func serveRefusesBadHTTPAddress(_ value: String, _ message: String) throws {
        let run = try CommandRunner.run(["serve", "--http", value])
        #expect(run.process.terminationStatus == 64)
        #expect(run.stderr.contains(message), "\(run.stderr)")
    }

    @Test("help and its subcommand words still work")
    func helpCommand() throws {
        let run = try CommandRunner.run(["help", "snapshot"])
        #expect(run.process.terminationStatus == 0, "\(run.stderr)")
        #expect(run.stdout.contains("--allow-missing"))
    }

    @Test("an endpoint without a transport gets rowcastd's message, from a flag or a variable")
    func endpointWithoutTransport() throws {
        let daemon = try runRowcastdToExit(["--control", "127.0.0.1:7702"])
        let problem = try #require(EndpointSyntax.problem(with: "127.0.0.1:7702"))
        #expect(daemon.stderr.contains("--control: " + problem), "\(daemon.stderr)")

        let flag = try CommandRunner.run(["status", "--control", "127.0.0.1:7702"])
        #expect(flag.process.terminationStatus == 64)
        #expect(flag.stderr.contains("--control: " + problem), "\(flag.stderr)")

        let variable = try CommandRunner(
            ["subscribe", "--feed", "cars"], environment: ["ROWCAST_PUBLISH": "127.0.0.1:7703"])
        #expect(variable.wait() == 64)
        #expect(
            variable.stderr.contains("ROWCAST_PUBLISH: " + (EndpointSyntax.problem(with: "127.0.0.1:7703") ?? "")),
            "\(variable.stderr)")

        let ingest = try CommandRunner.run([
            "publish", "--feed", "cars", "--no-ack", "--delete", "--id", "1", "--ingest", "localhost:7701",
        ])
        #expect(ingest.process.terminationStatus == 64)
        #expect(ingest.stderr.contains("--ingest: must be a ZeroMQ endpoint"), "\(ingest.stderr)")
    }
}
