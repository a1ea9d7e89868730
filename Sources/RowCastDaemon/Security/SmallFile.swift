import RowCastSupport

#if canImport(Glibc)
import Glibc
#endif

/// Reads and writes the small text files of CURVE keys.
enum SmallFile {
    /// The text of `path` (at most 64 KiB), after checking with ``FileTrust`` that only root or
    /// rowcastd's user can have written it (and, for a `secret`, that no one else can read it);
    /// an error names the file and the fix.
    static func readTrusted(_ path: String, what: String, secret: Bool = false) throws(KeyFileError) -> String {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw KeyFileError(file: path, problem: "cannot open the \(what): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        if let problem = FileTrust.problem(descriptor: descriptor, file: path, what: what) {
            throw KeyFileError(file: path, problem: problem)
        }
        var info = stat()
        if secret, fstat(descriptor, &info) == 0, info.st_mode & 0o077 != 0 {
            throw KeyFileError(
                file: path,
                problem:
                    "the \(what) holds a secret key but others may read it (mode \(FileMode.octal(info.st_mode & 0o7777))); fix: chmod 0600 \(path)"
            )
        }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            if count < 0 {
                if errno == EINTR { continue }
                throw KeyFileError(file: path, problem: "cannot read the \(what): \(String(cString: strerror(errno)))")
            }
            if count == 0 { break }
            bytes += buffer[0..<count]
            if bytes.count > 65536 {
                throw KeyFileError(file: path, problem: "the \(what) is over 64 KiB; is it the right file?")
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Creates `path` with `mode` and `text`; fails when it exists.
    static func create(_ path: String, mode: mode_t, text: String) throws(KeyFileError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard descriptor >= 0 else {
            throw KeyFileError(file: path, problem: "cannot create it: \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        let bytes = Array(text.utf8)
        guard write(descriptor, bytes, bytes.count) == bytes.count, fsync(descriptor) == 0 else {
            throw KeyFileError(file: path, problem: "cannot write it: \(String(cString: strerror(errno)))")
        }
    }
}

/// A key file (the server's key pair, a client's public key) cannot be used.
public struct KeyFileError: Error, Sendable, CustomStringConvertible {
    /// The file.
    public let file: String
    /// What is wrong and what to do.
    public let problem: String
    /// `FILE: PROBLEM`.
    public var description: String { "\(file): \(problem)" }
}
