import Foundation

/// Replaces every resolved secret value in a text with `<secret>`, so error messages and log lines can be
/// recorded and shown: a function may read a secret, but what it throws or logs never carries it on.
public struct SecretScrubber: Sendable {
    /// Longest first, so a secret containing another is replaced whole.
    private let values: [String]

    public static let replacement = "<secret>"

    public init(secrets: some Sequence<Secret>) {
        values = Set(secrets.map(\.exposedValue).filter { !$0.isEmpty }).sorted {
            $0.utf8.count != $1.utf8.count ? $0.utf8.count > $1.utf8.count : $0 < $1
        }
    }

    /// Scrubs the secrets among `values`.
    public init(values: AppValues) {
        self.init(
            secrets: values.names.compactMap { name -> Secret? in
                if case .secret(let secret)? = values[name] { return secret }
                return nil
            })
    }

    public func scrub(_ text: String) -> String {
        var text = text
        for value in values where text.contains(value) {
            text = text.replacingOccurrences(of: value, with: Self.replacement)
        }
        return text
    }
}
