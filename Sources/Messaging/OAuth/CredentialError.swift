/// Credentials that cannot be used: a service account or `.p8` key file that is missing, not JSON, lacks a
/// field, or holds no usable private key. Messages say which file or field; they never contain key material.
public struct CredentialError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
