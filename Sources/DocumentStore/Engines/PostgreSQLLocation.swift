/// Where a PostgreSQL store lives: a libpq connection URL (`postgresql://user:password@host:port/database?…`).
/// It prints without its password (`postgresql://user:***@host/database`), so logs and errors never carry it.
package struct PostgreSQLLocation: Sendable, Equatable, CustomStringConvertible {
    /// The URL as given, for libpq alone.
    let url: String

    /// - Throws: `StoreError.badValue` naming the problem (never the password) when `url` is no PostgreSQL URL.
    package init(url: String) throws(StoreError) {
        guard url.hasPrefix("postgresql://") || url.hasPrefix("postgres://") else {
            throw .badValue("a PostgreSQL store is a URL starting postgresql://, not \(Self.redacting(url))")
        }
        self.url = url
    }

    package var description: String { Self.redacting(url) }

    /// Whether the URL carries a password, in its user information or a `password=` parameter.
    package var holdsPassword: Bool { Self.redacting(url) != url }

    /// `url` with the password of its user information and of a `password=` query parameter replaced by `***`.
    package static func redacting(_ url: String) -> String {
        var text = Substring(url)
        var redacted = ""
        if let scheme = text.range(of: "://") {
            redacted += text[..<scheme.upperBound]
            text = text[scheme.upperBound...]
            // User information ends at the last `@` before the path: a password may itself hold `@` or `/`.
            let authorityEnd = text.firstIndex(where: { $0 == "?" }) ?? text.endIndex
            if let at = text[..<authorityEnd].lastIndex(of: "@") {
                let user = text[..<at]
                if let colon = user.firstIndex(of: ":") {
                    redacted += user[..<colon] + ":***"
                } else {
                    redacted += user
                }
                text = text[at...]
            }
        }
        guard let query = text.firstIndex(of: "?") else { return redacted + text }
        redacted += text[...query]
        let parameters = text[text.index(after: query)...].split(separator: "&", omittingEmptySubsequences: false)
        redacted += parameters.map { parameter in
            parameter.lowercased().hasPrefix("password=") ? "password=***" : String(parameter)
        }.joined(separator: "&")
        return redacted
    }
}
