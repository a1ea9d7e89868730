import Foundation
import RowCastStore

extension RowcastdCommand {
    /// --check-state: prints the report, returns the exit status.
    static func checkState(_ directory: String) -> Int32 {
        let database = directory + "/" + SQLiteFeedStore.databaseFileName
        guard FileManager.default.fileExists(atPath: database) else {
            printError(
                "rowcastd: there is no state to check: \(database) does not exist. Name the state directory with --state-dir or --config."
            )
            return 66
        }
        let report: StateCheck.Report
        do {
            report = try StateCheck.run(directory: directory)
        } catch {
            printError("rowcastd: cannot check the state: \(error.message)")
            return error.exitStatus
        }
        print("# rowcastd: state \(report.database) (schema \(report.schema))")
        print(report.records.map { "\($0.table) \($0.count)" }.joined(separator: ", "))
        if !report.checksummed {
            print("# records carry no checksums yet (schema \(report.schema)): the next start adds them")
        }
        for problem in report.problems { print("damaged: \(problem)") }
        guard report.isClean else {
            printError(
                "rowcastd: \(report.problems.count) damaged record\(report.problems.count == 1 ? "" : "s") in \(report.database): see docs/OPERATIONS.md, \"Damaged records\"."
            )
            return 65
        }
        print("ok: no damaged record")
        return 0
    }
}
