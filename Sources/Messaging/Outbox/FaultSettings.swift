import BSON

/// The failures the development outbox (and the FCM emulator endpoint in front of it) injects, so the code
/// that sends can be tested against FCM's bad days. Counts are what is left: each injected failure uses one
/// up, so reading the settings back shows how many are still to come.
///
/// Document form (what the admin API reads and writes at `/admin/v1/faults`; every field optional when
/// written, all present when read):
/// ```
/// {"unregisteredTokens": ["token", …],  // these tokens answer 404 UNREGISTERED
///  "unavailable": 0,                     // the next N sends answer 503 UNAVAILABLE
///  "internalErrors": 0,                  // the next N sends answer 500 INTERNAL
///  "quotaExceeded": 0,                   // the next N sends answer 429 QUOTA_EXCEEDED
///  "rateLimit": 0,                       // sends beyond N in any second answer 429 QUOTA_EXCEEDED (0: no limit)
///  "retryAfterSeconds": 1,               // the Retry-After header of those 429s
///  "latencyMilliseconds": 0,             // every send answers this much later
///  "connectionResets": 0}                // the next N HTTP sends lose their connection, unanswered
/// ```
/// Injected failures are recorded in the outbox as failed entries; connection resets record nothing (FCM
/// never saw the request), and in-process sends have no connection to lose.
package struct FaultSettings: Sendable, Equatable {
    package var unregisteredTokens: Set<String>
    package var unavailable: Int
    package var internalErrors: Int
    package var quotaExceeded: Int
    /// Sends per second beyond which FCM answers 429; 0 for no limit.
    package var rateLimit: Int
    package var retryAfterSeconds: Int
    package var latency: Duration
    package var connectionResets: Int

    package init(
        unregisteredTokens: Set<String> = [], unavailable: Int = 0, internalErrors: Int = 0, quotaExceeded: Int = 0,
        rateLimit: Int = 0, retryAfterSeconds: Int = 1, latency: Duration = .zero, connectionResets: Int = 0
    ) {
        self.unregisteredTokens = unregisteredTokens
        self.unavailable = unavailable
        self.internalErrors = internalErrors
        self.quotaExceeded = quotaExceeded
        self.rateLimit = rateLimit
        self.retryAfterSeconds = retryAfterSeconds
        self.latency = latency
        self.connectionResets = connectionResets
    }

    /// `latency` in whole milliseconds.
    package var latencyMilliseconds: Int {
        let (seconds, attoseconds) = latency.components
        return Int(clamping: min(max(seconds, 0), 1_000_000_000)) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }

    /// Whether any failure or delay is set.
    package var isEmpty: Bool { self == FaultSettings() }

    /// The document form described above; tokens sorted.
    package var document: BSONDocument {
        [
            "unregisteredTokens": .array(unregisteredTokens.sorted().map { .string($0) }),
            "unavailable": .int64(Int64(unavailable)),
            "internalErrors": .int64(Int64(internalErrors)),
            "quotaExceeded": .int64(Int64(quotaExceeded)),
            "rateLimit": .int64(Int64(rateLimit)),
            "retryAfterSeconds": .int64(Int64(retryAfterSeconds)),
            "latencyMilliseconds": .int64(Int64(latencyMilliseconds)),
            "connectionResets": .int64(Int64(connectionResets)),
        ]
    }

    /// Reads the document form; fields left out keep their value in `base` (so a partial document changes only
    /// what it names). Errors name the field and what it must be.
    package init(document: BSONDocument, base: FaultSettings = FaultSettings()) throws(FaultSettingsError) {
        self = base
        for (key, value) in document {
            switch key {
            case "unregisteredTokens":
                guard case .array(let items) = value else {
                    throw FaultSettingsError("'unregisteredTokens' must be an array of strings")
                }
                var tokens: Set<String> = []
                for item in items {
                    guard case .string(let token) = item, !token.isEmpty else {
                        throw FaultSettingsError("'unregisteredTokens' must hold non-empty strings only")
                    }
                    tokens.insert(token)
                }
                unregisteredTokens = tokens
            case "unavailable": unavailable = try Self.count(value, key)
            case "internalErrors": internalErrors = try Self.count(value, key)
            case "quotaExceeded": quotaExceeded = try Self.count(value, key)
            case "rateLimit": rateLimit = try Self.count(value, key)
            case "retryAfterSeconds": retryAfterSeconds = try Self.count(value, key, maximum: 86_400)
            case "latencyMilliseconds": latency = .milliseconds(try Self.count(value, key, maximum: 600_000))
            case "connectionResets": connectionResets = try Self.count(value, key)
            default:
                throw FaultSettingsError(
                    "unknown field '\(key)' (known: \(Self.fieldNames.joined(separator: ", ")))")
            }
        }
    }

    package static let fieldNames = [
        "unregisteredTokens", "unavailable", "internalErrors", "quotaExceeded", "rateLimit", "retryAfterSeconds",
        "latencyMilliseconds", "connectionResets",
    ]

    /// Counts and limits: whole numbers from 0 to `maximum`.
    package static let maximumCount = 1_000_000_000

    private static func count(_ value: BSON, _ key: String, maximum: Int = maximumCount) throws(FaultSettingsError)
        -> Int
    {
        let number: Int?
        switch value {
        case .int32(let v): number = Int(v)
        case .int64(let v): number = Int(v)
        case .double(let v): number = v.rounded() == v && abs(v) <= 1e15 ? Int(v) : nil
        default: number = nil
        }
        guard let number, (0...maximum).contains(number) else {
            throw FaultSettingsError("'\(key)' must be a whole number from 0 to \(maximum)")
        }
        return number
    }
}

/// A fault settings document that cannot be applied, and why.
package struct FaultSettingsError: Error, Sendable, Equatable, CustomStringConvertible {
    package var message: String
    package init(_ message: String) { self.message = message }
    package var description: String { message }
}
