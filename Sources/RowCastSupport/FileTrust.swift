#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Whether a file rowcastd is about to trust (a plugin it will run, a key file that decides who
/// may connect) could have been written by someone else: a file writable by its group or by
/// others, or owned by a user other than root or rowcastd's own user, is refused.
///
/// The check runs on the open descriptor (`fstat`), so what is checked is what is read.
public enum FileTrust {
    /// Why the file open as `descriptor` (read from `file`) must not be trusted, naming the file
    /// and the fix, or nil when only root or `trustedUser` can have written it.
    public static func problem(descriptor: Int32, file: String, what: String, trustedUser: uid_t = geteuid()) -> String?
    {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            return "cannot check who may write the \(what) \(file): \(String(cString: strerror(errno)))"
        }
        return problem(info, file: file, what: what, trustedUser: trustedUser)
    }

    /// Why a file with the status `info` must not be trusted, or nil.
    public static func problem(_ info: stat, file: String, what: String, trustedUser: uid_t = geteuid()) -> String? {
        let owner = info.st_uid
        if owner != 0 && owner != trustedUser {
            return
                "the \(what) \(file) is owned by \(userName(owner)), not by root or rowcastd's user (\(userName(trustedUser))), "
                + "so that user can change what rowcastd trusts; fix: chown root \(file) (or chown \(userName(trustedUser)))"
        }
        let writable = info.st_mode & (S_IWGRP | S_IWOTH)
        if writable != 0 {
            let who =
                writable == (S_IWGRP | S_IWOTH)
                ? "its group and by others" : (writable & S_IWOTH != 0 ? "others" : "its group")
            return
                "the \(what) \(file) is writable by \(who) (mode \(FileMode.octal(info.st_mode & 0o7777))), so they can change what rowcastd trusts; "
                + "fix: chmod go-w \(file)"
        }
        return nil
    }

    /// `uid` as "name (uid N)", or "uid N" when it has no name.
    static func userName(_ uid: uid_t) -> String {
        guard let entry = getpwuid(uid), let name = entry.pointee.pw_name else { return "uid \(uid)" }
        return "\(String(cString: name)) (uid \(uid))"
    }
}
