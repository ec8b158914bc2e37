import BSON
import Foundation

/// What the server keeps of a user's password for one mechanism (RFC 5802 §3): the salt and rounds a client
/// repeats PBKDF2 with, and the keys that check its proof and sign the server's answer. The password itself, and
/// anything it can be read back from without the PBKDF2 work, is never kept.
package struct ScramCredential: Sendable, Equatable {
    package var mechanism: ScramMechanism
    package var iterations: Int
    package var salt: [UInt8]
    package var storedKey: [UInt8]
    package var serverKey: [UInt8]

    /// Derives the credential of `password` with a new random salt.
    package static func derive(
        mechanism: ScramMechanism, user: String, password: String, salt: [UInt8]? = nil, iterations: Int? = nil
    ) throws(ScramFailure) -> ScramCredential {
        let salt = salt ?? ScramMechanism.randomBytes(mechanism.saltLength)
        let iterations = iterations ?? mechanism.defaultIterations
        let salted = try mechanism.saltedPassword(password, user: user, salt: salt, iterations: iterations)
        return ScramCredential(
            mechanism: mechanism, iterations: iterations, salt: salt,
            storedKey: mechanism.hash(mechanism.hmac(key: salted, Array("Client Key".utf8))),
            serverKey: mechanism.hmac(key: salted, Array("Server Key".utf8)))
    }

    /// `{iterationCount, salt, storedKey, serverKey}`, the keys base64 as mongod keeps them.
    var document: BSONDocument {
        [
            "iterationCount": .int32(Int32(iterations)), "salt": .string(Data(salt).base64EncodedString()),
            "storedKey": .string(Data(storedKey).base64EncodedString()),
            "serverKey": .string(Data(serverKey).base64EncodedString()),
        ]
    }

    /// Reads `document`; nil when a field is missing or malformed.
    init?(mechanism: ScramMechanism, document: BSONDocument) {
        func bytes(_ name: String) -> [UInt8]? {
            document[name]?.stringValue.flatMap { Data(base64Encoded: $0) }.map { Array($0) }
        }
        guard let iterations = document["iterationCount"]?.int64Value, iterations >= 4096, iterations <= 10_000_000,
            let salt = bytes("salt"), !salt.isEmpty, let storedKey = bytes("storedKey"),
            let serverKey = bytes("serverKey")
        else { return nil }
        self.init(
            mechanism: mechanism, iterations: Int(iterations), salt: salt, storedKey: storedKey, serverKey: serverKey)
    }

    init(mechanism: ScramMechanism, iterations: Int, salt: [UInt8], storedKey: [UInt8], serverKey: [UInt8]) {
        self.mechanism = mechanism
        self.iterations = iterations
        self.salt = salt
        self.storedKey = storedKey
        self.serverKey = serverKey
    }
}
