import BSON

extension ExpressionOperator {
    static let strings: [ExpressionOperator] = [
        ExpressionOperator("$concat", variadic) { args throws(StoreError) in
            var output = ""
            for arg in args {
                if arg.isNullish { return .null }
                guard case .string(let s)? = arg else {
                    throw .location(16702, "$concat only supports strings, not \(typeName(arg))")
                }
                output += s
            }
            return .string(output)
        },
        ExpressionOperator("$toLower", 1...1) { args throws(StoreError) in
            .string(StringOperators.mapASCII(try StringOperators.coerce(args[0], "$toLower"), offset: 32, in: 65...90))
        },
        ExpressionOperator("$toUpper", 1...1) { args throws(StoreError) in
            .string(
                StringOperators.mapASCII(try StringOperators.coerce(args[0], "$toUpper"), offset: -32, in: 97...122))
        },
        ExpressionOperator("$strLenCP", 1...1) { args throws(StoreError) in
            guard case .string(let s)? = args[0] else {
                throw .location(34471, "$strLenCP requires a string argument, found: \(typeName(args[0]))")
            }
            return .int32(Int32(clamping: s.unicodeScalars.count))
        },
        ExpressionOperator("$substrCP", 3...3) { args throws(StoreError) in try StringOperators.substrCP(args) },
        ExpressionOperator("$split", 2...2) { args throws(StoreError) in try StringOperators.split(args[0], args[1]) },
    ]
}

enum StringOperators {
    /// The string form `$toLower`, `$toUpper` and `$substrCP` accept: null and missing become "", numbers and
    /// dates their text.
    static func coerce(_ value: BSON?, _ name: String) throws(StoreError) -> String {
        switch value {
        case nil, .null?, .undefined?: return ""
        case .string(let s)?, .symbol(let s)?: return s
        case .int32?, .int64?, .double?, .datetime?, .timestamp?:
            return try ConversionOperators.string(value!)
        case let other?:
            throw .location(16007, "can't convert from BSON type \(other.typeName) to String (in \(name))")
        }
    }

    /// MongoDB changes case for ASCII letters only.
    static func mapASCII(_ s: String, offset: Int, in range: ClosedRange<UInt8>) -> String {
        String(decoding: s.utf8.map { range.contains($0) ? UInt8(Int($0) + offset) : $0 }, as: UTF8.self)
    }

    static func substrCP(_ args: [BSON?]) throws(StoreError) -> BSON? {
        let s = try coerce(args[0], "$substrCP")
        guard let start = args[1], start.isNumber else {
            throw .location(
                34450, "$substrCP: starting index must be a numeric type (is BSON type \(typeName(args[1])))")
        }
        guard let startIndex = start.int64Value.flatMap({ Int32(exactly: $0) }) else {
            throw .location(34451, "$substrCP: starting index cannot be represented as a 32-bit integral value")
        }
        guard let length = args[2], length.isNumber else {
            throw .location(34452, "$substrCP: length must be a numeric type (is BSON type \(typeName(args[2])))")
        }
        guard let count = length.int64Value.flatMap({ Int32(exactly: $0) }) else {
            throw .location(34453, "$substrCP: length cannot be represented as a 32-bit integral value")
        }
        guard startIndex >= 0 else {
            throw .location(34455, "$substrCP: the starting index must be nonnegative integer.")
        }
        guard count >= 0 else { throw .location(34454, "$substrCP: length must be a nonnegative integer.") }
        let scalars = Array(s.unicodeScalars)
        let from = min(Int(startIndex), scalars.count)
        let to = min(from + Int(count), scalars.count)
        var out = String.UnicodeScalarView()
        out.append(contentsOf: scalars[from..<to])
        return .string(String(out))
    }

    static func split(_ input: BSON?, _ delimiter: BSON?) throws(StoreError) -> BSON? {
        if input.isNullish || delimiter.isNullish { return .null }
        guard case .string(let s)? = input else {
            throw .location(
                40085,
                "$split requires an expression that evaluates to a string as a first argument, found: \(typeName(input))"
            )
        }
        guard case .string(let separator)? = delimiter else {
            throw .location(
                40086,
                "$split requires an expression that evaluates to a string as a second argument, found: "
                    + typeName(delimiter))
        }
        guard !separator.isEmpty else { throw .location(40087, "$split requires a non-empty separator") }
        let bytes = Array(s.utf8)
        let sep = Array(separator.utf8)
        var pieces: [BSON] = []
        var pieceStart = 0
        var i = 0
        while i + sep.count <= bytes.count {
            if bytes[i..<(i + sep.count)].elementsEqual(sep) {
                pieces.append(.string(String(decoding: bytes[pieceStart..<i], as: UTF8.self)))
                i += sep.count
                pieceStart = i
            } else {
                i += 1
            }
        }
        pieces.append(.string(String(decoding: bytes[pieceStart...], as: UTF8.self)))
        return .array(pieces)
    }
}
