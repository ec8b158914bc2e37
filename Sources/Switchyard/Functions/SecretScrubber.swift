import BSON
import Foundation

/// Replaces every resolved secret value in a text with `<secret>`, so error messages and log lines can be
/// recorded and shown: a function may read a secret, but what it throws or logs never carries it on.
///
/// A secret reaches a text in more forms than its own: a thrown error's description quotes its strings the way
/// Swift's `debugDescription` does, a logged document is Extended JSON, a JSON body quoted inside another JSON
/// string is escaped twice, and credentials travel base64-encoded (an `Authorization: Basic` header, a key file
/// read as data). Each of those forms of each secret is replaced, so a PEM key (quotes, backslashes and newlines
/// once escaped) is scrubbed whichever way it was written.
package struct SecretScrubber: Sendable {
    /// Longest first, so a secret containing another is replaced whole.
    private let values: [String]

    package static let replacement = "<secret>"

    package init(secrets: some Sequence<Secret>) {
        values = Set(secrets.map(\.exposedValue).filter { !$0.isEmpty }.flatMap(Self.encodings)).sorted {
            $0.utf8.count != $1.utf8.count ? $0.utf8.count > $1.utf8.count : $0 < $1
        }
    }

    /// The forms `secret` takes in text: itself, JSON-escaped (once and twice, with and without `\/`), as a Swift
    /// string literal, and base64 (standard and URL-safe, with and without padding).
    static func encodings(of secret: String) -> [String] {
        let json = jsonEscaped(secret)
        let base64 = Data(secret.utf8).base64EncodedString()
        let unpadded = String(base64.prefix { $0 != "=" })
        let urlSafe = unpadded.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        return [
            secret, json, jsonEscaped(json), json.replacingOccurrences(of: "/", with: "\\/"),
            String(secret.debugDescription.dropFirst().dropLast()), base64, unpadded, urlSafe,
        ]
    }

    /// The secret as it appears between the quotes of an Extended JSON (or plain JSON) string.
    private static func jsonEscaped(_ text: String) -> String {
        String(BSON.string(text).extendedJSON().dropFirst().dropLast())
    }

    /// Scrubs the secrets among `values`.
    package init(values: AppValues) {
        self.init(
            secrets: values.names.compactMap { name -> Secret? in
                if case .secret(let secret)? = values[name] { return secret }
                return nil
            })
    }

    package func scrub(_ text: String) -> String {
        var text = text
        for value in values where text.contains(value) {
            text = text.replacingOccurrences(of: value, with: Self.replacement)
        }
        return text
    }
}
