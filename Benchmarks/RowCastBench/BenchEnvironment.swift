import RowCastJSON

#if canImport(Glibc)
import Glibc
#endif

/// What the figures were measured on: machine, cores, build mode, date.
enum BenchEnvironment {
    static func describe() -> JSONObject {
        var name = utsname()
        uname(&name)
        func field<T>(_ value: T) -> String {
            withUnsafeBytes(of: value) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
        }
        #if DEBUG
        let build = "debug"
        #else
        let build = "release"
        #endif
        var now = time(nil)
        var parts = tm()
        gmtime_r(&now, &parts)
        let date =
            "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min))Z"
        return [
            "machine": .string(
                "\(field(name.sysname)) \(field(name.release)) \(field(name.machine)), \(sysconf(Int32(_SC_NPROCESSORS_ONLN))) cores"
            ),
            "build": .string(build),
            "date": .string(date),
        ]
    }

    private static func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
