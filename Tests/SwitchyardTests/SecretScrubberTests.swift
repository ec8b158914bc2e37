import BSON
import Foundation
import Testing

@testable import Switchyard

/// A secret is scrubbed in every form it can take in a text: a PEM key carries quotes' and newlines' escapes.
@Suite struct SecretScrubberTests {
    /// PEM-shaped, with a quote, a backslash and a slash besides its newlines.
    static let key =
        "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n"
        + "q\"uoted\\back/slash+Z9mE4t\n-----END PRIVATE KEY-----\n"
    static let scrubber = SecretScrubber(secrets: [Secret(name: "fcm", value: key)])
    /// A line of the key's body: present in every unscrubbed form but base64.
    static let bodyLine = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7"

    struct KeyRefused: Error {
        let key: String
    }

    static var forms: [String] {
        let json = String(BSON.string(key).extendedJSON().dropFirst().dropLast())
        let twice = String(BSON.string(json).extendedJSON().dropFirst().dropLast())
        let base64 = Data(key.utf8).base64EncodedString()
        return [
            key, json, twice, json.replacingOccurrences(of: "/", with: "\\/"),
            String(describing: KeyRefused(key: key)), (["key": .string(key)] as BSONDocument).extendedJSON(),
            base64, String(base64.prefix { $0 != "=" }),
            base64.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: ""),
        ]
    }

    @Test(arguments: forms)
    func everyFormOfTheSecretIsReplaced(_ form: String) {
        let scrubbed = Self.scrubber.scrub("refused: \(form) (retrying)")
        #expect(scrubbed.contains(SecretScrubber.replacement))
        #expect(!scrubbed.contains(Self.bodyLine))
        #expect(!scrubbed.contains(String(Data(Self.key.utf8).base64EncodedString().prefix(40))))
        #expect(scrubbed.hasPrefix("refused: ") && scrubbed.hasSuffix(" (retrying)"))
    }

    @Test func textWithoutTheSecretIsLeftAsItIs() {
        let text = #"{"error": "a\nb \"c\" MIIE"}"#
        #expect(Self.scrubber.scrub(text) == text)
    }

    /// What serve's log (`text`, `jsonLine`) and `switchyard logs` (`lines`) print of a run that threw and logged
    /// the key: no form of it.
    @Test func aRunsPrintedFormsCarryNoFormOfTheKey() async throws {
        var registry = FunctionRegistry()
        registry.register("leak") { (_: [BSON], context: FunctionContext) -> BSON in
            let key = context.values.get("fcmKey")?.stringValue ?? ""
            context.log((["key": .string(key)] as BSONDocument).extendedJSON())
            context.log(Data(key.utf8).base64EncodedString())
            throw SecretScrubberTests.KeyRefused(key: key)
        }
        let values = AppValues([("fcmKey", .secret(Secret(name: "fcm-key", value: SecretScrubberTests.key)))])
        let app = try await SwitchyardApp.inMemory(registry, values: values)
        await #expect(throws: FunctionCallError.self) {
            try await app.call(function: "leak", user: FunctionUser(id: "u"))
        }
        let record = try #require(try await app.invocations.records().first)
        let base64Start = String(Data(SecretScrubberTests.key.utf8).base64EncodedString().prefix(40))
        for printed in [record.text, record.jsonLine, record.lines.joined(separator: "\n")] {
            #expect(printed.contains(SecretScrubber.replacement))
            #expect(!printed.contains(SecretScrubberTests.bodyLine))
            #expect(!printed.contains(base64Start))
        }
        await app.stop()
    }
}
