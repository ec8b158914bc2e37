import Foundation

/// Which invocation records a read wants; nil fields match every record.
struct InvocationFilter: Sendable {
    var trigger: String?
    var function: String?
    var outcome: InvocationRecord.Outcome?
    /// Only runs that started at or after this time.
    var since: Date?
    /// Only runs that started before this time.
    var until: Date?

    func matches(_ record: InvocationRecord) -> Bool {
        if let trigger, record.trigger != trigger { return false }
        if let function, record.function != function { return false }
        if let outcome, record.outcome != outcome { return false }
        if let since, record.start < since { return false }
        if let until, record.start >= until { return false }
        return true
    }

    /// Whether a page whose runs started between `first` and `last` can hold a match.
    func mayMatch(first: Date, last: Date) -> Bool {
        if let since, last < since { return false }
        if let until, first >= until { return false }
        return true
    }
}
