import Foundation

/// The server's side of one SCRAM exchange (RFC 5802 §5): the client's first message, answered with the salt,
/// rounds and a nonce; the client's proof, checked and answered with the server's signature. Channel binding is
/// not offered (the wire protocol here has no TLS), and an authorization identity other than the user is refused.
///
/// An unknown user gets a made-up credential, so the exchange goes on and fails where a wrong password fails, with
/// the same answer: nothing tells which of the two was wrong.
struct ScramConversation: Sendable {
    let mechanism: ScramMechanism
    let user: String
    private let credential: ScramCredential
    private let gs2Header: String
    private let nonce: String
    /// client-first-message-bare "," server-first-message ",", the start of the AuthMessage.
    private let exchanged: String

    /// Reads the client's first message and returns the conversation and the server's first message.
    static func start(
        mechanism: ScramMechanism, payload: [UInt8], credential lookup: (String) -> ScramCredential?,
        standIn: (String) -> ScramCredential
    ) throws(ScramFailure) -> (ScramConversation, serverFirst: [UInt8]) {
        guard let message = String(validating: payload, as: UTF8.self) else {
            throw ScramFailure("the SCRAM message is not UTF-8")
        }
        // gs2-header: a channel binding flag and an optional authzid, each followed by a comma.
        let parts = message.split(separator: ",", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw ScramFailure("the SCRAM client-first message is malformed") }
        switch parts[0] {
        case "n", "y": break
        case let flag where flag.hasPrefix("p="):
            throw ScramFailure("SCRAM channel binding is not supported")
        default: throw ScramFailure("the SCRAM client-first message is malformed")
        }
        let bare = String(parts[2])
        let attributes = bare.split(separator: ",", omittingEmptySubsequences: false)
        guard attributes.count >= 2, attributes[0].hasPrefix("n="), attributes[1].hasPrefix("r="),
            let user = Self.decodedName(attributes[0].dropFirst(2)), !user.isEmpty
        else { throw ScramFailure("the SCRAM client-first message is malformed") }
        if !parts[1].isEmpty, Self.decodedName(parts[1].dropFirst(2)) != user || !parts[1].hasPrefix("a=") {
            throw ScramFailure("SCRAM authorization as another user is not supported")
        }
        let clientNonce = attributes[1].dropFirst(2)
        guard !clientNonce.isEmpty, clientNonce.allSatisfy({ $0.isASCII && $0 != "," && $0.asciiValue! > 0x20 })
        else { throw ScramFailure("the SCRAM client nonce is malformed") }
        let credential = lookup(user) ?? standIn(user)
        let nonce = String(clientNonce) + Data(ScramMechanism.randomBytes(24)).base64EncodedString()
        let serverFirst = "r=\(nonce),s=\(Data(credential.salt).base64EncodedString()),i=\(credential.iterations)"
        let conversation = ScramConversation(
            mechanism: mechanism, user: user, credential: credential, gs2Header: "\(parts[0]),\(parts[1]),",
            nonce: nonce, exchanged: "\(bare),\(serverFirst),")
        return (conversation, Array(serverFirst.utf8))
    }

    /// Checks the client's final message (its proof) and returns the server's final message.
    func finish(payload: [UInt8]) throws(ScramFailure) -> [UInt8] {
        guard let message = String(validating: payload, as: UTF8.self),
            let proofStart = message.range(of: ",p=", options: .backwards)
        else { throw ScramFailure("the SCRAM client-final message is malformed") }
        let withoutProof = String(message[..<proofStart.lowerBound])
        let attributes = withoutProof.split(separator: ",", omittingEmptySubsequences: false)
        guard attributes.count >= 2, attributes[0].hasPrefix("c="), attributes[1].hasPrefix("r="),
            let proof = Data(base64Encoded: String(message[proofStart.upperBound...])).map(Array.init)
        else { throw ScramFailure("the SCRAM client-final message is malformed") }
        guard Data(base64Encoded: String(attributes[0].dropFirst(2))) == Data(gs2Header.utf8) else {
            throw ScramFailure("the SCRAM channel binding does not match the client-first message")
        }
        guard attributes[1].dropFirst(2) == nonce else { throw ScramFailure("the SCRAM nonce does not match") }
        let authMessage = Array((exchanged + withoutProof).utf8)
        let signature = mechanism.hmac(key: credential.storedKey, authMessage)
        guard proof.count == signature.count else { throw ScramFailure.authenticationFailed }
        let clientKey = zip(proof, signature).map { $0 ^ $1 }
        guard ScramMechanism.constantTimeEquals(mechanism.hash(clientKey), credential.storedKey) else {
            throw ScramFailure.authenticationFailed
        }
        let serverSignature = mechanism.hmac(key: credential.serverKey, authMessage)
        return Array("v=\(Data(serverSignature).base64EncodedString())".utf8)
    }

    /// A saslname: `=2C` stands for `,` and `=3D` for `=`; any other `=` is malformed.
    private static func decodedName(_ text: Substring) -> String? {
        var name = ""
        var rest = text[...]
        while let equals = rest.firstIndex(of: "=") {
            name += rest[..<equals]
            let code = rest[equals...].prefix(3)
            switch code {
            case "=2C": name += ","
            case "=3D": name += "="
            default: return nil
            }
            rest = rest[rest.index(equals, offsetBy: 3)...]
        }
        return name + rest
    }
}
