import Foundation
import Messaging

/// A fresh 2048-bit RSA private key in PEM, made by the openssl tool: a service account's `private_key` for tests
/// that hand it to another process or library as a file's contents would.
public func freshRSAPrivateKeyPEM() throws -> String {
    try FinishedProcess.runWaiting(
        "/usr/bin/openssl", ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"]
    ).output
}
