import CPCRE2

/// A pattern compiled by PCRE2, the library MongoDB evaluates `$regex` with, so the syntax and options users
/// write for MongoDB mean the same here. Every match runs under `matchLimit` and `depthLimit`: a pattern that
/// backtracks catastrophically (`(a+)+$` against a long run of `a`s and one `!`) gives up after a bounded amount
/// of work instead of holding its thread for minutes, and the query fails with MongoDB's error.
final class CompiledPattern: @unchecked Sendable {
    // Unchecked: PCRE2 never changes compiled code after `pcre2_compile`, and documents it as safe to match from
    // many threads at once; each match brings its own match data.
    private let code: OpaquePointer

    /// Steps of PCRE2's matcher one match may take. PCRE2's default, ten million, let `(.*a){20}$` against 27
    /// characters run for two seconds; a tenth of it gives up in a fifth of a second, far more steps than
    /// ordinary patterns take on long strings.
    static let matchLimit: UInt32 = 1_000_000
    /// How deeply one match may nest its backtracking points (PCRE2's default is ten million).
    static let depthLimit: UInt32 = 100_000
    /// Kibibytes of heap one match may use for its backtracking frames (PCRE2's default: 20 MiB).
    static let heapLimit: UInt32 = 8 * 1024

    /// MongoDB's option letters, as PCRE2 compile options; UTF-8 mode is always on, as on the server.
    init(pattern: String, options: String) throws(StoreError) {
        var flags = UInt32(PCRE2_UTF)
        for option in options {
            switch option {
            case "i": flags |= UInt32(PCRE2_CASELESS)
            case "m": flags |= UInt32(PCRE2_MULTILINE)
            case "s": flags |= UInt32(PCRE2_DOTALL)
            case "x": flags |= UInt32(PCRE2_EXTENDED)
            case "u": break
            default: throw .location(51108, "invalid flag in regex options: \(option)")
            }
        }
        var error: Int32 = 0
        var offset = 0
        var pattern = pattern
        let compiled = pattern.withUTF8 { bytes in
            cpcre2_compile(bytes.baseAddress, bytes.count, flags, &error, &offset)
        }
        guard let compiled else {
            throw .location(51091, "Regular expression is invalid: \(Self.message(error))")
        }
        code = compiled
    }

    deinit { cpcre2_code_free(code) }

    /// Whether the pattern matches somewhere in `string`. `operatorName` names the operator in the error a
    /// match limit raises (`$regex`).
    func matches(_ string: String, operatorName: String) throws(StoreError) -> Bool {
        guard let data = cpcre2_match_data_create() else {
            throw .location(51156, "Error occurred while executing the regular expression in \(operatorName)")
        }
        defer { cpcre2_match_data_free(data) }
        var string = string
        // Swift strings are valid UTF-8, so PCRE2 need not check the subject again on every match.
        let result = string.withUTF8 { bytes in
            cpcre2_match(code, bytes.baseAddress, bytes.count, UInt32(PCRE2_NO_UTF_CHECK), data, Limits.shared.context)
        }
        if result >= 0 { return true }
        if result == PCRE2_ERROR_NOMATCH { return false }
        throw .location(
            51156,
            "Error occurred while executing the regular expression in \(operatorName). Result code: \(Self.message(result))"
        )
    }

    private static func message(_ error: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = buffer.withUnsafeMutableBufferPointer { cpcre2_error_message(error, $0.baseAddress, $0.count) }
        return count > 0 ? String(decoding: buffer.prefix(Int(count)), as: UTF8.self) : "PCRE2 error \(error)"
    }

    /// The match context carrying the limits, made once and shared by every match (PCRE2 only reads it).
    private final class Limits: @unchecked Sendable {
        // Unchecked: the context is written once, here, before any match can see it.
        let context: OpaquePointer?

        static let shared = Limits()

        private init() {
            context = cpcre2_match_context_create()
            cpcre2_set_match_limit(context, CompiledPattern.matchLimit)
            cpcre2_set_depth_limit(context, CompiledPattern.depthLimit)
            cpcre2_set_heap_limit(context, CompiledPattern.heapLimit)
        }
    }
}
