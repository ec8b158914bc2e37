/// What can be an FCM registration token or Firebase installation ID at all: 1 to 4096 printable ASCII
/// characters without spaces (real ones are about 160, `[A-Za-z0-9_:-]`). Anything else FCM refuses with
/// `INVALID_ARGUMENT`, "The registration token is not a valid FCM registration token", before it looks the token
/// up; a well-formed token it never issued is `UNREGISTERED` instead.
package enum RegistrationToken {
    /// Longer strings are no registration token.
    package static let maximumLength = 4096

    package static func isWellFormed(_ token: String) -> Bool {
        !token.isEmpty && token.utf8.count <= maximumLength && token.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }
    }
}
