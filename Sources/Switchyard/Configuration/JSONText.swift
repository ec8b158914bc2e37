/// Reads JSON configuration files (`values.json`, `secrets.json`, environment files, an export's JSON) as
/// strict JSON (RFC 8259) into `YAMLNode`s, so they keep key order, refuse duplicate keys and give every
/// value a line and column, which Foundation's `JSONSerialization` does not. Strings become quoted scalars,
/// numbers and `true`/`false`/`null` plain ones (`ScalarRules.json` reads them).
///
/// Errors speak JSON's terms and never repeat a value's text: the same reader parses `secrets.json`.
enum JSONText {
    static let maximumDepth = 256

    static func parse(_ text: String, reader: inout ConfigurationReader) -> YAMLNode? {
        var scanner = Scanner(Array(text.unicodeScalars))
        do throws(Failure) {
            try scanner.skipWhitespace()
            guard let first = scanner.peek else {
                throw Failure("empty file, expected a JSON object", at: SourceLocation(line: 1, column: 1))
            }
            guard first == "{" || first == "[" else { throw Failure("expected a JSON object", at: scanner.location) }
            let node = try scanner.value(depth: 0)
            try scanner.skipWhitespace()
            if scanner.peek != nil { throw Failure("unexpected text after the JSON value", at: scanner.location) }
            return node
        } catch {
            reader.error(error.message, at: error.location)
            return nil
        }
    }

    struct Failure: Error {
        var message: String
        var location: SourceLocation

        init(_ message: String, at location: SourceLocation) {
            self.message = message
            self.location = location
        }
    }

    /// A cursor over the text that knows its line and column (1-based, counted in Unicode scalars).
    struct Scanner {
        let scalars: [Unicode.Scalar]
        var index = 0
        var line = 1
        var lineStart = 0

        init(_ scalars: [Unicode.Scalar]) {
            self.scalars = scalars
        }

        var peek: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }
        var location: SourceLocation { SourceLocation(line: line, column: index - lineStart + 1) }

        mutating func advance() {
            if scalars[index] == "\n" {
                line += 1
                lineStart = index + 1
            }
            index += 1
        }

        /// Skips whitespace; a comment is an error (people write them, JSON has none).
        mutating func skipWhitespace() throws(Failure) {
            while let scalar = peek, scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" { advance() }
            if peek == "/", index + 1 < scalars.count, scalars[index + 1] == "/" || scalars[index + 1] == "*" {
                throw Failure("JSON has no comments", at: location)
            }
        }

        mutating func value(depth: Int) throws(Failure) -> YAMLNode {
            try skipWhitespace()
            let start = location
            guard depth < JSONText.maximumDepth else {
                throw Failure("JSON nested deeper than \(JSONText.maximumDepth) levels", at: start)
            }
            switch peek {
            case nil: throw Failure("expected a JSON value, found the end of the file", at: start)
            case "{": return try object(depth: depth)
            case "[": return try array(depth: depth)
            case "\"": return YAMLNode(.scalar(try string(), isPlain: false), at: start)
            case "'": throw Failure("strings need double quotes", at: start)
            default: return YAMLNode(.scalar(try literal(), isPlain: true), at: start)
            }
        }

        private mutating func object(depth: Int) throws(Failure) -> YAMLNode {
            let start = location
            advance()
            var pairs: [(key: YAMLNode, value: YAMLNode)] = []
            try skipWhitespace()
            if peek == "}" {
                advance()
                return YAMLNode(.mapping([]), at: start)
            }
            while true {
                try skipWhitespace()
                let keyLocation = location
                switch peek {
                case "\"": break
                case "}": throw Failure("trailing comma: JSON allows no ',' before '}'", at: keyLocation)
                case "'": throw Failure("keys need double quotes", at: keyLocation)
                case nil: throw Failure("this '{' is not closed", at: start)
                default: throw Failure("expected a key in double quotes", at: keyLocation)
                }
                let key = try string()
                if pairs.contains(where: { $0.key.scalar == key }) {
                    throw Failure("duplicate key '\(key)'", at: keyLocation)
                }
                try skipWhitespace()
                guard peek == ":" else {
                    throw peek == nil
                        ? Failure("this '{' is not closed", at: start)
                        : Failure("expected ':' after the key", at: location)
                }
                advance()
                let value = try value(depth: depth + 1)
                pairs.append((YAMLNode(.scalar(key, isPlain: false), at: keyLocation), value))
                try skipWhitespace()
                switch peek {
                case ",": advance()
                case "}":
                    advance()
                    return YAMLNode(.mapping(pairs), at: start)
                case nil: throw Failure("this '{' is not closed", at: start)
                default: throw Failure("expected ',' or '}' after the value", at: location)
                }
            }
        }

        private mutating func array(depth: Int) throws(Failure) -> YAMLNode {
            let start = location
            advance()
            var items: [YAMLNode] = []
            try skipWhitespace()
            if peek == "]" {
                advance()
                return YAMLNode(.sequence([]), at: start)
            }
            while true {
                try skipWhitespace()
                switch peek {
                case "]": throw Failure("trailing comma: JSON allows no ',' before ']'", at: location)
                case nil: throw Failure("this '[' is not closed", at: start)
                default: break
                }
                items.append(try value(depth: depth + 1))
                try skipWhitespace()
                switch peek {
                case ",": advance()
                case "]":
                    advance()
                    return YAMLNode(.sequence(items), at: start)
                case nil: throw Failure("this '[' is not closed", at: start)
                default: throw Failure("expected ',' or ']' after the value", at: location)
                }
            }
        }

        /// A string's value, from its opening quote to past its closing one.
        private mutating func string() throws(Failure) -> String {
            let start = location
            advance()
            var text = String.UnicodeScalarView()
            while true {
                guard let scalar = peek, scalar != "\n" else {
                    throw Failure("this string is not closed on its line", at: start)
                }
                if scalar == "\"" {
                    advance()
                    return String(text)
                }
                if scalar.value < 0x20 {
                    throw Failure("control characters in strings must be escaped", at: location)
                }
                if scalar != "\\" {
                    text.append(scalar)
                    advance()
                    continue
                }
                let escape = location
                advance()
                guard let code = peek else { throw Failure("this string is not closed on its line", at: start) }
                advance()
                switch code {
                case "\"", "\\", "/": text.append(code)
                case "b": text.append("\u{08}")
                case "f": text.append("\u{0C}")
                case "n": text.append("\n")
                case "r": text.append("\r")
                case "t": text.append("\t")
                case "u": text.append(try unicodeEscape(at: escape))
                default:
                    throw Failure(
                        "invalid escape in a string (JSON has \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u)", at: escape)
                }
            }
        }

        /// The scalar of `\uXXXX`, or of a surrogate pair `\uD83D\uDE00`, after its `\u`.
        private mutating func unicodeEscape(at escape: SourceLocation) throws(Failure) -> Unicode.Scalar {
            let high = try hex4(at: escape)
            if (0xDC00...0xDFFF).contains(high) {
                throw Failure("\\u escape is a lone low surrogate", at: escape)
            }
            if (0xD800...0xDBFF).contains(high) {
                guard peek == "\\", index + 1 < scalars.count, scalars[index + 1] == "u" else {
                    throw Failure("\\u escape is a high surrogate without its low one", at: escape)
                }
                advance()
                advance()
                let low = try hex4(at: escape)
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw Failure("\\u escape is a high surrogate without its low one", at: escape)
                }
                return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))!
            }
            return Unicode.Scalar(high)!
        }

        private mutating func hex4(at escape: SourceLocation) throws(Failure) -> UInt32 {
            var value: UInt32 = 0
            for _ in 0..<4 {
                guard let scalar = peek, let digit = Character(scalar).hexDigitValue else {
                    throw Failure("\\u needs four hexadecimal digits", at: escape)
                }
                value = value * 16 + UInt32(digit)
                advance()
            }
            return value
        }

        /// A number or `true`/`false`/`null`: the run of characters up to the next delimiter, checked.
        private mutating func literal() throws(Failure) -> String {
            let start = location
            var text = String.UnicodeScalarView()
            while let scalar = peek, !" \t\r\n,:]}[{\"".unicodeScalars.contains(scalar) {
                text.append(scalar)
                advance()
            }
            let literal = String(text)
            guard ["true", "false", "null"].contains(literal) || ConfigurationReader.isJSONNumber(literal) else {
                throw Failure(
                    literal.isEmpty ? "expected a JSON value" : "invalid JSON value (strings need double quotes)",
                    at: start)
            }
            return literal
        }
    }
}
