/// What an App Services function's JavaScript says about its interface: the parameters of the function it
/// assigns to `exports` (`exports = async function(token, {email, name}) {…}`, `exports = (a, b) => …`,
/// `exports = arg => …`). The text is scanned, not evaluated: strings, comments and nested brackets are
/// skipped, so a parameter list holding a destructuring or a default value still splits at its own commas.
enum JavaScriptExports {
    /// The parameters as written (defaults dropped); nil when no `exports = function` or arrow is found.
    static func parameters(of source: String) -> [String]? {
        let text = Array(source.unicodeScalars)
        var index = 0
        while let found = find("exports", in: text, from: index) {
            index = found + 7
            var cursor = skipSpace(text, index)
            guard cursor < text.count, text[cursor] == "=", cursor + 1 >= text.count || text[cursor + 1] != "=" else {
                continue
            }
            cursor = skipSpace(text, cursor + 1)
            if word("async", in: text, at: cursor) { cursor = skipSpace(text, cursor + 5) }
            if word("function", in: text, at: cursor) {
                cursor = skipSpace(text, cursor + 8)
                while cursor < text.count, isIdentifier(text[cursor]) { cursor += 1 }
                cursor = skipSpace(text, cursor)
            }
            if cursor < text.count, text[cursor] == "(" {
                guard let close = closing(text, from: cursor) else { return nil }
                return split(Array(text[(cursor + 1)..<close]))
            }
            let start = cursor
            while cursor < text.count, isIdentifier(text[cursor]) { cursor += 1 }
            let name = String(String.UnicodeScalarView(text[start..<cursor]))
            if !name.isEmpty, word("=>", in: text, at: skipSpace(text, cursor)) { return [name] }
        }
        return nil
    }

    private static func isIdentifier(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_" || scalar == "$"
    }

    private static func find(_ needle: String, in text: [Unicode.Scalar], from start: Int) -> Int? {
        var index = start
        while index < text.count {
            if word(needle, in: text, at: index), index == 0 || !isIdentifier(text[index - 1]) {
                return index
            }
            index = skipComment(text, index) ?? index + 1
        }
        return nil
    }

    private static func word(_ word: String, in text: [Unicode.Scalar], at index: Int) -> Bool {
        let scalars = Array(word.unicodeScalars)
        guard index + scalars.count <= text.count, Array(text[index..<(index + scalars.count)]) == scalars else {
            return false
        }
        let end = index + scalars.count
        return !isIdentifier(scalars[scalars.count - 1]) || end == text.count || !isIdentifier(text[end])
    }

    private static func skipSpace(_ text: [Unicode.Scalar], _ start: Int) -> Int {
        var index = start
        while index < text.count {
            if text[index].properties.isWhitespace {
                index += 1
            } else if let next = skipComment(text, index) {
                index = next
            } else {
                break
            }
        }
        return index
    }

    /// The index after a comment or string starting at `index`; nil when none starts there.
    private static func skipComment(_ text: [Unicode.Scalar], _ index: Int) -> Int? {
        let scalar = text[index]
        let next = index + 1 < text.count ? text[index + 1] : nil
        if scalar == "/", next == "/" {
            var end = index
            while end < text.count, text[end] != "\n" { end += 1 }
            return end
        }
        if scalar == "/", next == "*" {
            var end = index + 2
            while end + 1 < text.count, !(text[end] == "*" && text[end + 1] == "/") { end += 1 }
            return min(end + 2, text.count)
        }
        if scalar == "\"" || scalar == "'" || scalar == "`" {
            var end = index + 1
            while end < text.count, text[end] != scalar {
                end += text[end] == "\\" ? 2 : 1
            }
            return min(end + 1, text.count)
        }
        return nil
    }

    /// The index of the bracket closing the one at `open`.
    private static func closing(_ text: [Unicode.Scalar], from open: Int) -> Int? {
        var depth = 0
        var index = open
        while index < text.count {
            if let next = skipComment(text, index) {
                index = next
                continue
            }
            switch text[index] {
            case "(", "[", "{": depth += 1
            case ")", "]", "}":
                depth -= 1
                if depth == 0 { return index }
            default: break
            }
            index += 1
        }
        return nil
    }

    /// Splits a parameter list at its top-level commas, dropping default values.
    private static func split(_ list: [Unicode.Scalar]) -> [String] {
        var parameters: [String] = []
        var current: [Unicode.Scalar] = []
        var depth = 0
        var inDefault = false
        var index = 0
        func finish() {
            let text = String(String.UnicodeScalarView(current)).split(whereSeparator: \.isWhitespace)
                .joined(separator: " ")
            if !text.isEmpty { parameters.append(text) }
            current = []
            inDefault = false
        }
        while index < list.count {
            if let next = skipComment(list, index) {
                if !inDefault, list[index] != "/" { current += list[index..<next] }
                index = next
                continue
            }
            let scalar = list[index]
            switch scalar {
            case "(", "[", "{": depth += 1
            case ")", "]", "}": depth -= 1
            case "," where depth == 0:
                finish()
                index += 1
                continue
            case "=" where depth == 0: inDefault = true
            default: break
            }
            if !inDefault { current.append(scalar) }
            index += 1
        }
        finish()
        return parameters
    }
}
