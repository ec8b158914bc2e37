/// Credentials that cannot be used: a service account or `.p8` key file that is missing, not JSON, lacks a
/// field, or holds no usable private key. Messages say which file or field; they never contain key material.
package struct CredentialError: Error, Sendable, Equatable, CustomStringConvertible {
    package var message: String

    package init(_ message: String) { self.message = message }

    package var description: String { message }
}
