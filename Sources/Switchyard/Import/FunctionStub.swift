/// The generated Swift stand-in for a function an export implements in JavaScript: a function of the kind its
/// use needs, its JavaScript quoted in its comment and kept beside it in `functions/js/`, throwing
/// `NotPortedYet` until it is ported. All generated stub text lives here.
package enum FunctionStub {
    package static let directory = "functions"
    /// Where the JavaScript sources are kept, inside `functions/` and excluded from the functions target.
    package static let javaScriptFolder = "js"
    /// The error type every stub throws, written once beside the stubs; the leading `_` keeps the registry
    /// generator from taking it for a function.
    package static let errorFile = "_NotPortedYet.swift"

    /// One stub per function and its JavaScript, plus the shared error type.
    package static func files(for functions: [ImportedFunction]) -> [(path: String, contents: String)] {
        var files: [(path: String, contents: String)] = []
        for function in functions {
            files.append(("\(directory)/\(identifier(for: function.name)).swift", source(for: function)))
            if let javaScript = function.javaScript {
                files.append((javaScriptPath(for: function.name), javaScript))
            }
        }
        files.append(("\(directory)/\(errorFile)", errorSource))
        return files
    }

    /// `functions/js/<name>.js`, relative to the package.
    package static func javaScriptPath(for function: String) -> String {
        "\(directory)/\(javaScriptFolder)/\(identifier(for: function)).js"
    }

    package static func source(for function: ImportedFunction) -> String {
        let name = identifier(for: function.name)
        let literal = YAMLWriter.quoted(function.name)
        var lines = ["import Switchyard", ""]
        let role = function.usedBy.isEmpty ? "a callable function" : function.usedBy.joined(separator: " and ")
        lines.append("/// `\(function.name)`, \(role), imported from App Services.")
        lines.append("///")
        if function.kind == .callable {
            if function.parameters.isEmpty {
                lines.append("/// Its JavaScript takes no arguments.")
            } else {
                lines.append(
                    "/// Its JavaScript takes \(function.parameters.count == 1 ? "one argument" : "\(function.parameters.count) arguments"):"
                )
                for (index, parameter) in function.parameters.enumerated() {
                    lines.append("/// - `arguments[\(index)]`: `\(parameter)`")
                }
            }
            lines.append("///")
        }
        if let javaScript = function.javaScript {
            lines.append(
                "/// Port its JavaScript, kept in `\(javaScriptPath(for: function.name))` and quoted here, to Swift; until then"
            )
            lines.append("/// every run fails with `NotPortedYet` naming it.")
            lines.append("///")
            lines.append("/// ```javascript")
            for line in javaScript.split(separator: "\n", omittingEmptySubsequences: false).dropLast(
                javaScript.hasSuffix("\n") ? 1 : 0)
            {
                lines.append(line.isEmpty ? "///" : "/// \(line)")
            }
            lines.append("/// ```")
        } else {
            lines.append(
                "/// The export holds no JavaScript for it; write it in Swift. Until then every run fails with")
            lines.append("/// `NotPortedYet` naming it.")
        }
        switch function.kind {
        case .callable:
            lines.append("func \(name)(_ arguments: [BSON], _ context: FunctionContext) async throws -> BSON {")
        case .database:
            lines.append("func \(name)(_ event: ChangeEvent, _ context: FunctionContext) async throws {")
        case .scheduled:
            lines.append("func \(name)(_ event: ScheduledEvent, _ context: FunctionContext) async throws {")
        case .authentication:
            lines.append("func \(name)(_ event: AuthEvent, _ context: FunctionContext) async throws {")
        }
        lines += ["    throw NotPortedYet(\(literal))", "}", ""]
        return lines.joined(separator: "\n")
    }

    static let errorSource = """
        /// Thrown by a function imported from App Services whose JavaScript is not ported to Swift yet.
        struct NotPortedYet: Error, CustomStringConvertible {
            let function: String

            init(_ function: String) {
                self.function = function
            }

            var description: String {
                "not ported yet: \\(function) still runs its JavaScript stub; port functions/js/\\(function).js to functions/\\(function).swift"
            }
        }

        """

    /// The Swift identifier, and so the registered name, for an App Services function name
    /// (`utils/send-push` → `utils_send_push`, `default` → `default_`): a function file is named like its
    /// function and registered under that name.
    package static func identifier(for function: String) -> String {
        let name = sanitized(function)
        return keywords.contains(name) ? name + "_" : name
    }

    /// Letters, digits and `_` only, not starting with a digit.
    private static func sanitized(_ function: String) -> String {
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
