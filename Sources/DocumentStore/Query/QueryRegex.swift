import BSON
import Foundation

/// A compiled `$regex` (or `/pattern/options` value). ICU's engine behind `NSRegularExpression` reads the
/// PCRE syntax MongoDB users write (lookarounds, `\d`, inline flags), which Swift's `Regex` only partly does.
struct QueryRegex: Sendable {
    let pattern: String
    /// Option letters, sorted, as `BSONRegularExpression` keeps them.
    let options: String
    private let expression: CompiledExpression

    /// `NSRegularExpression` is immutable once built and documented as safe to use from many threads;
    /// corelibs-foundation does not mark it `Sendable`, hence the box.
    private final class CompiledExpression: @unchecked Sendable {
        let regex: NSRegularExpression
        init(_ regex: NSRegularExpression) { self.regex = regex }
    }

    init(pattern: String, options: String) throws(StoreError) {
        if pattern.utf8.contains(0) {
            throw .badValue("Regular expression cannot contain an embedded null byte")
        }
        var flags: NSRegularExpression.Options = []
        for option in options {
            switch option {
            case "i": flags.insert(.caseInsensitive)
            case "m": flags.insert(.anchorsMatchLines)
            case "s": flags.insert(.dotMatchesLineSeparators)
            case "x": flags.insert(.allowCommentsAndWhitespace)
            case "u": break  // UTF-8 matching is the only mode ICU has
            default: throw .location(51108, "invalid flag in regex options: \(option)")
            }
        }
        do {
            expression = CompiledExpression(try NSRegularExpression(pattern: pattern, options: flags))
        } catch {
            throw .location(51091, "Regular expression is invalid: \(error.localizedDescription)")
        }
        self.pattern = pattern
        self.options = String(options.sorted())
    }

    init(_ regex: BSONRegularExpression) throws(StoreError) {
        try self.init(pattern: regex.pattern, options: regex.options)
    }

    /// Strings and symbols match by pattern; a stored regex value matches when pattern and options are equal.
    func matches(_ value: BSON) -> Bool {
        switch value {
        case .string(let string), .symbol(let string):
            return matches(string)
        case .regex(let regex):
            return regex.pattern == pattern && String(regex.options.sorted()) == options
        default:
            return false
        }
    }

    func matches(_ string: String) -> Bool {
        let range = NSRange(location: 0, length: string.utf16.count)
        return expression.regex.firstMatch(in: string, options: [], range: range) != nil
    }
}
