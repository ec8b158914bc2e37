import Foundation
import Messaging

/// A fresh 2048-bit RSA private key in PEM, made by the openssl tool: a service account's `private_key` for tests
/// that hand it to another process or library as a file's contents would.
public func freshRSAPrivateKeyPEM() throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
    process.arguments = ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"]
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    let data = output.fileHandleForReading.readUntilEnd()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
}
