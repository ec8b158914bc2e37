import BSON
import Foundation

/// A Google service account: what `FCMClient` signs its OAuth2 assertions with. Read from the JSON file the
/// Firebase console downloads, or from the same JSON kept as a secret or value (`project_id`, `client_email`,
/// `private_key`, `token_uri`; `private_key_id` when present).
///
/// Descriptions and errors never show the private key.
package struct ServiceAccount: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    package static let googleTokenURI = "https://oauth2.googleapis.com/token"

    package let projectId: String
    package let clientEmail: String
    /// The key's id, sent as the assertion's `kid`.
    package let privateKeyId: String?
    /// Where access tokens are obtained.
    package let tokenURI: String
    package let signingKey: SigningKey

    /// - Parameter privateKey: the PEM text of an RSA private key.
    package init(
        projectId: String, clientEmail: String, privateKey: String, privateKeyId: String? = nil,
        tokenURI: String = ServiceAccount.googleTokenURI, source: String = "the service account"
    ) throws(CredentialError) {
        for (name, value) in [("project_id", projectId), ("client_email", clientEmail), ("token_uri", tokenURI)]
        where value.isEmpty {
            throw CredentialError("\(source): \(name) is empty")
        }
        let key = try SigningKey(pem: privateKey, source: "\(source): private_key")
        guard key.algorithm == .rs256 else {
            throw CredentialError("\(source): private_key is not an RSA key (Google signs service accounts with RS256)")
        }
        self.projectId = projectId
        self.clientEmail = clientEmail
        self.privateKeyId = privateKeyId
        self.tokenURI = tokenURI
        self.signingKey = key
    }

    /// An account with a key already in hand (a generated one, for a local emulator).
    package init(
        projectId: String, clientEmail: String, signingKey: SigningKey, privateKeyId: String? = nil, tokenURI: String
    ) throws(CredentialError) {
        guard signingKey.algorithm == .rs256 else {
            throw CredentialError("a service account's key must be an RSA key (Google signs them with RS256)")
        }
        self.projectId = projectId
        self.clientEmail = clientEmail
        self.privateKeyId = privateKeyId
        self.tokenURI = tokenURI
        self.signingKey = signingKey
    }

    /// Reads the fields of a service-account object (the JSON file's, or a value's).
    package init(document: BSONDocument, source: String = "the service account") throws(CredentialError) {
        func field(_ name: String, required: Bool = true) throws(CredentialError) -> String? {
            switch document[name] {
            case .string(let value)?: return value
            case nil, .null?:
                if required { throw CredentialError("\(source) has no \(name)") }
                return nil
            case let other?:
                throw CredentialError("\(source): \(name) must be a string, not \(other.typeName)")
            }
        }
        if let type = try field("type", required: false), type != "service_account" {
            throw CredentialError("\(source) is a \"\(type)\" credential, not a service_account")
        }
        try self.init(
            projectId: try field("project_id") ?? "", clientEmail: try field("client_email") ?? "",
            privateKey: try field("private_key") ?? "", privateKeyId: try field("private_key_id", required: false),
            tokenURI: try field("token_uri", required: false) ?? Self.googleTokenURI, source: source)
    }

    /// Reads service-account JSON text (the downloaded file's contents, or a secret holding them).
    package init(json: some Collection<UInt8>, source: String = "the service account JSON") throws(CredentialError) {
        let document: BSONDocument
        do {
            document = try ExtendedJSON.parseDocument(json)
        } catch {
            throw CredentialError("\(source) is not valid JSON: \(error.line):\(error.column): \(error.message)")
        }
        try self.init(document: document, source: source)
    }

    package init(json: String, source: String = "the service account JSON") throws(CredentialError) {
        try self.init(json: Array(json.utf8), source: source)
    }

    /// Reads a service-account JSON file.
    package init(contentsOfFile path: String) throws(CredentialError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CredentialError("cannot read the service account file \(path)")
        }
        try self.init(json: Array(data), source: path)
    }

    package var description: String {
        "ServiceAccount(\(clientEmail), project \(projectId), token_uri \(tokenURI), private_key <redacted>)"
    }

    package var debugDescription: String { description }

    package var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "projectId": projectId, "clientEmail": clientEmail, "privateKeyId": privateKeyId as Any,
                "tokenURI": tokenURI, "privateKey": "<redacted>",
            ])
    }
}

extension BSON {
    fileprivate var typeName: String {
        switch self {
        case .document: "an object"
        case .array: "an array"
        case .bool: "a boolean"
        case .int32, .int64, .double, .decimal128: "a number"
        default: "\(self)"
        }
    }
}
