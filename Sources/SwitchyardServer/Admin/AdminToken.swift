import Foundation

/// The bearer token the admin API asks for: 32 random bytes from the kernel as 64 hex digits, made anew at
/// every start, printed by `switchyard serve` and written to `<data-dir>/admin.token` (mode 0600) for scripts.
package struct AdminToken: Sendable, CustomStringConvertible {
    package static let fileName = "admin.token"

    package let value: String

    /// A token that is not random (tests only need one they know); `generate()` is the one to serve with.
    package init(value: String) {
        self.value = value
    }

    /// 32 bytes from the system's CSPRNG.
    package static func generate() -> AdminToken {
        AdminToken(value: Cryptography.hex(Cryptography.randomBytes(32)))
    }

    /// Whether `candidate` is this token, in time that does not depend on where they differ.
    package func matches(_ candidate: String?) -> Bool {
        guard let candidate else { return false }
        let expected = Array(value.utf8)
        let given = Array(candidate.utf8)
        // The length is no secret (every token has 64 digits); the content is compared in full.
        guard expected.count == given.count else { return false }
        var difference: UInt8 = 0
        for index in expected.indices { difference |= expected[index] ^ given[index] }
        return difference == 0
    }

    /// Writes the token to `<directory>/admin.token`, readable by the owner only (the file is replaced, so a
    /// file left with wider permissions does not keep them). Creates the directory when missing. The token is
    /// written to a file beside it and renamed over it: a script or command reading the file meanwhile finds the
    /// previous token or this one, never an empty or missing file.
    /// - Returns: the file's path.
    @discardableResult
    package func write(toDirectory directory: String) throws(AdminTokenError) -> String {
        let path = directory.hasSuffix("/") ? directory + Self.fileName : "\(directory)/\(Self.fileName)"
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw AdminTokenError(message: "cannot create \(directory) for the admin token: \(error)")
        }
        let staged = "\(path).\(getpid()).new"
        unlink(staged)
        let descriptor = open(staged, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw AdminTokenError(message: "cannot write \(path): \(String(cString: strerror(errno)))")
        }
        let bytes = Array((value + "\n").utf8)
        let written = bytes.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
        let complete = written == bytes.count && fchmod(descriptor, 0o600) == 0
        let reason = String(cString: strerror(errno))
        close(descriptor)
        guard complete, rename(staged, path) == 0 else {
            let failure = complete ? String(cString: strerror(errno)) : reason
            unlink(staged)
            throw AdminTokenError(message: "cannot write \(path): \(failure)")
        }
        return path
    }

    /// Never the token itself, so it does not end up in logs by accident.
    package var description: String { "AdminToken(\(value.count) characters)" }
}

/// The admin token could not be written.
package struct AdminTokenError: Error, Sendable, CustomStringConvertible {
    package var message: String
    package var description: String { message }
}
