import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads whole files for commands and imports, saying why one cannot be read (no such file, permission denied,
/// is a directory), where `FileManager.contents(atPath:)` only returns nil.
package enum LocalFile {
    /// Why a file could not be read: `nope.json: no such file`.
    package struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        package var path: String
        package var reason: String

        package var description: String { "cannot read \(path): \(reason)" }
    }

    package static func contents(_ path: String) throws(Failure) -> Data {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Failure(path: path, reason: reason(errno)) }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var status = stat()
        if fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
            throw Failure(path: path, reason: "is a directory")
        }
        do {
            return try handle.readToEnd() ?? Data()
        } catch {
            throw Failure(path: path, reason: error.localizedDescription)
        }
    }

    /// The reasons people meet, in their words; the system's text for the rest.
    private static func reason(_ code: Int32) -> String {
        switch code {
        case ENOENT: "no such file"
        case EACCES, EPERM: "permission denied"
        case EISDIR: "is a directory"
        case ENOTDIR: "a part of the path is not a directory"
        default: String(cString: strerror(code))
        }
    }
}
