/// The generated Swift stand-in for a function an export implements in JavaScript. All generated stub text
/// lives here, so it changes in one place when the function API exists.
package enum FunctionStub {
    package static let directory = "functions"
    /// The error type every stub throws, written once beside the stubs.
    package static let errorFile = "NotImplemented.swift"

    /// One stub per function plus the shared error type; nothing for no functions.
    package static func files(for functions: [String]) -> [(path: String, contents: String)] {
        guard !functions.isEmpty else { return [] }
        var files = functions.map { ("\(directory)/\(sanitized($0)).swift", source(for: $0)) }
        files.append(("\(directory)/\(errorFile)", errorSource))
        return files
    }

    package static func source(for function: String) -> String {
        let name = identifier(for: function)
        let literal = YAMLWriter.quoted(function)
        return """
            /// `\(function)`, imported from an App Services export.
            ///
            /// Its JavaScript source is `functions/\(function).js` in the export; port that logic here in Swift.
            /// Until then, triggers that call it fail with a `NotImplemented` error naming it.
            func \(name)() throws {
                throw NotImplemented(\(literal))
            }

            """
    }

    static let errorSource = """
        /// Thrown by functions imported from App Services that have not been ported to Swift yet.
        struct NotImplemented: Error, CustomStringConvertible {
            let function: String

            init(_ function: String) {
                self.function = function
            }

            var description: String { "not implemented yet: port \\(function) from the export" }
        }

        """

    /// A Swift identifier for an App Services function name (`utils/send-push` → `utils_send_push`).
    package static func identifier(for function: String) -> String {
        let name = sanitized(function)
        return keywords.contains(name) ? "`\(name)`" : name
    }

    /// Letters, digits and `_` only, not starting with a digit; also the stub's file name.
    static func sanitized(_ function: String) -> String {
        var name = String(
            String.UnicodeScalarView(
                function.unicodeScalars.map { scalar in
                    scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_")
                        ? scalar : "_"
                }))
        if name.isEmpty || name.unicodeScalars.first.map({ ("0"..."9").contains($0) }) == true { name = "_" + name }
        return name
    }

    private static let keywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init", "inout",
        "internal", "let", "open", "operator", "private", "protocol", "public", "rethrows", "static", "struct",
        "subscript", "typealias", "var", "break", "case", "continue", "default", "defer", "do", "else",
        "fallthrough", "for", "guard", "if", "in", "repeat", "return", "switch", "where", "while", "as", "Any",
        "catch", "false", "is", "nil", "super", "self", "Self", "throw", "throws", "true", "try", "await", "async",
    ]
}
