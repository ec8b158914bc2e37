import BSON

/// Turns a filter document into a `QueryMatcher` tree, rejecting malformed filters with MongoDB's codes and
/// messages.
struct QueryFilterParser {
    /// Where in the filter the parser is: `$expr` and `$text` only apply to whole documents.
    enum Level {
        case predicateTop
        case documentTop
        case subDocument
    }

    static let maximumDepth = 100

    static let topLevelOperators: Set<String> = [
        "$and", "$or", "$nor", "$comment", "$expr", "$where", "$text", "$jsonSchema", "$alwaysTrue",
        "$alwaysFalse", "$id", "$ref", "$db",
    ]

    static let geoOperators: Set<String> = [
        "$near", "$nearSphere", "$geoNear", "$geoWithin", "$geoIntersects", "$within", "$box", "$center",
        "$centerSphere", "$polygon", "$geometry", "$maxDistance", "$minDistance",
    ]

    func parse(_ filter: BSONDocument, level: Level, depth: Int) throws(StoreError) -> QueryMatcher {
        try Self.checkDepth(depth)
        let nextLevel: Level = level == .predicateTop ? .documentTop : level
        var children: [QueryMatcher] = []
        for (key, value) in filter {
            if key.hasPrefix("$") {
                if let child = try parseTopLevelOperator(key, value, level: level, depth: depth) {
                    children.append(child)
                }
            } else if case .document(let operators) = value, QueryFilter.isOperatorDocument(operators) {
                children += try parseOperators(operators, path: FieldPath(key), level: nextLevel, depth: depth + 1)
            } else if case .regex(let regex) = value {
                children.append(.field(FieldPath(key), .regex(try QueryRegex(regex))))
            } else {
                children.append(.field(FieldPath(key), try equality(value)))
            }
        }
        return Self.conjunction(children)
    }

    /// Nesting is bounded so that matching never recurses without limit.
    private static func checkDepth(_ depth: Int) throws(StoreError) {
        guard depth <= maximumDepth else {
            throw .badValue("exceeded depth limit of \(maximumDepth) when parsing the query filter")
        }
    }

    static func conjunction(_ children: [QueryMatcher]) -> QueryMatcher {
        switch children.count {
        case 0: .always(true)
        case 1: children[0]
        default: .and(children)
        }
    }

    private func equality(_ value: BSON) throws(StoreError) -> QueryPredicate {
        if case .undefined = value { throw .badValue("cannot compare to undefined") }
        return .compare(.eq, value)
    }

    // MARK: Operators without a path ($and, $or, $expr, …)

    private func parseTopLevelOperator(_ name: String, _ value: BSON, level: Level, depth: Int)
        throws(StoreError) -> QueryMatcher?
    {
        switch name {
        case "$and", "$or", "$nor":
            guard case .array(let elements) = value else { throw .badValue("\(name) must be an array") }
            if elements.isEmpty { throw .badValue("$and/$or/$nor must be a nonempty array") }
            var children: [QueryMatcher] = []
            for element in elements {
                guard case .document(let clause) = element else {
                    throw .badValue("$or/$and/$nor entries need to be full objects")
                }
                children.append(try parse(clause, level: level, depth: depth + 1))
            }
            switch name {
            case "$and": return .and(children)
            case "$or": return .or(children)
            default: return .nor(children)
            }
        case "$comment":
            return nil
        case "$expr":
            if level == .subDocument { throw .badValue("$expr can only be applied to the top-level document") }
            return .expr(try Expression(value))
        case "$alwaysTrue", "$alwaysFalse":
            guard value.isNumber, value.int64Value == 1 else {
                throw .failedToParse("\(name) must be an integer value of 1")
            }
            return .always(name == "$alwaysTrue")
        case "$id", "$ref", "$db":
            // A DBRef's fields queried directly (`{"$id": …}` inside `$elemMatch`).
            return .field(FieldPath(name), try equality(value))
        case "$where":
            throw .badValue("$where is not supported: Switchyard does not run JavaScript in queries")
        case "$text":
            throw .badValue("$text is not supported: Switchyard has no text indexes")
        case "$jsonSchema":
            throw .badValue("$jsonSchema is not supported in query filters")
        default:
            throw .badValue("unknown top level operator: \(name)")
        }
    }

    // MARK: Operators on a path ({field: {$gt: 1, $lt: 5}})

    /// The conditions of one operator document, each its own matcher (they are AND-ed by the caller).
    func parseOperators(_ operators: BSONDocument, path: FieldPath, level: Level, depth: Int)
        throws(StoreError) -> [QueryMatcher]
    {
        try Self.checkDepth(depth)
        var matchers: [QueryMatcher] = []
        for (name, operand) in operators {
            if let matcher = try parseOperator(name, operand, in: operators, path: path, level: level, depth: depth) {
                matchers.append(matcher)
            }
        }
        return matchers
    }

    private func parseOperator(
        _ name: String, _ operand: BSON, in operators: BSONDocument, path: FieldPath, level: Level, depth: Int
    ) throws(StoreError) -> QueryMatcher? {
        func field(_ predicate: QueryPredicate) -> QueryMatcher { .field(path, predicate) }
        switch name {
        case "$eq":
            return field(try equality(operand))
        case "$ne":
            if case .regex = operand { throw .badValue("Can't have regex as arg to $ne.") }
            return .not(field(try equality(operand)))
        case "$lt", "$lte", "$gt", "$gte":
            if case .regex = operand {
                throw .badValue("Can't have RegEx as arg to predicate over field '\(path.dotted)'.")
            }
            if case .undefined = operand { throw .badValue("cannot compare to undefined") }
            let op: QueryPredicate.ComparisonOperator =
                switch name {
                case "$lt": .lt
                case "$lte": .lte
                case "$gt": .gt
                default: .gte
                }
            return field(.compare(op, operand))
        case "$in", "$nin":
            guard case .array(let elements) = operand else { throw .badValue("\(name) needs an array") }
            let set = field(.in(try QueryValueSet(elements)))
            return name == "$in" ? set : .not(set)
        case "$exists":
            return operand.isTruthy ? field(.exists) : .not(field(.exists))
        case "$type":
            return field(.type(try BSONTypeSet(parsing: operand)))
        case "$size":
            return field(.size(try Self.parseSize(operand)))
        case "$mod":
            let (divisor, remainder) = try Self.parseMod(operand)
            return field(.mod(divisor: divisor, remainder: remainder))
        case "$regex":
            return field(.regex(try Self.parseRegexDocument(operators)))
        case "$options":
            guard operators.contains("$regex") else { throw .badValue("$options needs a $regex") }
            return nil
        case "$elemMatch":
            return field(try parseElemMatch(operand, depth: depth))
        case "$all":
            return try parseAll(operand, path: path, depth: depth)
        case "$not":
            return .not(try parseNot(operand, path: path, level: level, depth: depth))
        case "$bitsAllSet", "$bitsAllClear", "$bitsAnySet", "$bitsAnyClear":
            let test: QueryPredicate.BitTest =
                switch name {
                case "$bitsAllSet": .allSet
                case "$bitsAllClear": .allClear
                case "$bitsAnySet": .anySet
                default: .anyClear
                }
            return field(.bits(test, positions: try Self.parseBitPositions(name, operand)))
        case "$where":
            throw .badValue("$where cannot be applied to a field")
        default:
            if Self.geoOperators.contains(name) {
                throw .badValue("\(name) is not supported: Switchyard has no geospatial queries")
            }
            throw .badValue("unknown operator: \(name)")
        }
    }

    private func parseNot(_ operand: BSON, path: FieldPath, level: Level, depth: Int) throws(StoreError)
        -> QueryMatcher
    {
        switch operand {
        case .regex(let regex):
            return .field(path, .regex(try QueryRegex(regex)))
        case .document(let operators):
            if operators.isEmpty { throw .badValue("$not cannot be empty") }
            return .and(try parseOperators(operators, path: path, level: level, depth: depth + 1))
        default:
            throw .badValue("$not needs a regex or a document")
        }
    }

    func parseElemMatch(_ operand: BSON, depth: Int) throws(StoreError) -> QueryPredicate {
        guard case .document(let filter) = operand else { throw .badValue("$elemMatch needs an Object") }
        if QueryFilter.isOperatorDocument(filter, allowIncompleteDBRef: true),
            let first = filter.keys.first, !Self.topLevelOperators.contains(first)
        {
            // Operators on the elements themselves: {$elemMatch: {$gte: 80, $lt: 85}}.
            return .elemMatchValue(
                try parseOperators(filter, path: FieldPath(""), level: .subDocument, depth: depth + 1))
        }
        if filter.keys.contains("$where") { throw .badValue("$elemMatch cannot contain $where expression") }
        return .elemMatchDocument(try parse(filter, level: .subDocument, depth: depth + 1))
    }

    private func parseAll(_ operand: BSON, path: FieldPath, depth: Int) throws(StoreError) -> QueryMatcher {
        guard case .array(let elements) = operand else { throw .badValue("$all needs an array") }
        if case .document(let first)? = elements.first, first.keys.first == "$elemMatch" {
            var children: [QueryMatcher] = []
            for element in elements {
                guard case .document(let document) = element, document.keys.first == "$elemMatch",
                    let elemMatch = document["$elemMatch"]
                else { throw .badValue("$all/$elemMatch has to be consistent") }
                children.append(.field(path, try parseElemMatch(elemMatch, depth: depth)))
            }
            return .and(children)
        }
        var children: [QueryMatcher] = []
        for element in elements {
            switch element {
            case .regex(let regex):
                children.append(.field(path, .regex(try QueryRegex(regex))))
            case .document(let document) where document.keys.first?.hasPrefix("$") == true:
                throw .badValue("no $ expressions in $all")
            default:
                children.append(.field(path, try equality(element)))
            }
        }
        // {$all: []} matches nothing.
        return children.isEmpty ? .always(false) : .and(children)
    }

    // MARK: Operands

    static func parseSize(_ operand: BSON) throws(StoreError) -> Int {
        let size: Int64
        switch operand {
        case .int32(let i): size = Int64(i)
        case .int64(let i):
            guard let fits = Int32(exactly: i) else {
                throw .badValue("$size must be representable as a 32-bit integer")
            }
            size = Int64(fits)
        case .double, .decimal128:
            guard let d = operand.doubleValue, let whole = Int32(exactly: d) else {
                throw .badValue("$size must be a whole number")
            }
            size = Int64(whole)
        default:
            throw .badValue("$size needs a number")
        }
        if size < 0 { throw .badValue("$size may not be negative") }
        return Int(size)
    }

    static func parseMod(_ operand: BSON) throws(StoreError) -> (Int64, Int64) {
        guard case .array(let elements) = operand else { throw .badValue("malformed mod, needs to be an array") }
        if elements.count < 2 { throw .badValue("malformed mod, not enough elements") }
        if elements.count > 2 { throw .badValue("malformed mod, too many elements") }
        guard elements[0].isNumber else { throw .badValue("malformed mod, divisor not a number") }
        guard elements[1].isNumber else { throw .badValue("malformed mod, remainder not a number") }
        func integral(_ value: BSON, _ role: String) throws(StoreError) -> Int64 {
            if let whole = value.truncatedInt64 { return whole }
            let reason =
                (value.doubleValue?.isFinite ?? false)
                ? "Out of bounds coercing to integral value" : "Unable to coerce NaN/Inf to integral type"
            throw .badValue("malformed mod, \(role) value is invalid :: caused by :: \(reason)")
        }
        let divisor = try integral(elements[0], "divisor")
        let remainder = try integral(elements[1], "remainder")
        if divisor == 0 { throw .badValue("divisor cannot be 0") }
        return (divisor, remainder)
    }

    /// `{$regex: "…", $options: "…"}` or `{$regex: /…/i}`; options may come from only one of them.
    static func parseRegexDocument(_ operators: BSONDocument) throws(StoreError) -> QueryRegex {
        var pattern = ""
        var options = ""
        var optionsFromRegex = false
        for (name, value) in operators {
            switch name {
            case "$regex":
                switch value {
                case .string(let string):
                    pattern = string
                case .regex(let regex):
                    pattern = regex.pattern
                    if !regex.options.isEmpty {
                        if !options.isEmpty { throw .location(51074, "options set in both $regex and $options") }
                        options = regex.options
                        optionsFromRegex = true
                    }
                default:
                    throw .badValue("$regex has to be a string")
                }
            case "$options":
                guard case .string(let string) = value else { throw .badValue("$options has to be a string") }
                if optionsFromRegex { throw .location(51075, "options set in both $regex and $options") }
                options = string
            default:
                continue
            }
        }
        return try QueryRegex(pattern: pattern, options: options)
    }

    static func parseBitPositions(_ name: String, _ operand: BSON) throws(StoreError) -> [Int] {
        switch operand {
        case .array(let elements):
            var positions: [Int] = []
            for element in elements {
                guard element.isNumber, let position = element.int64Value, let fits = Int32(exactly: position)
                else { throw .badValue("bit positions must be an integer but got: \(element)") }
                if fits < 0 { throw .badValue("bit positions must be >= 0 but got: \(element)") }
                positions.append(Int(fits))
            }
            return positions
        case .int32, .int64, .double, .decimal128:
            guard let mask = operand.int64Value else { throw .failedToParse("Expected an integer: \(operand)") }
            if mask < 0 { throw .failedToParse("Expected a positive number in: \(operand)") }
            return (0..<63).filter { mask & (1 << Int64($0)) != 0 }
        case .binary(let binary):
            return binary.data.indices.flatMap { byte in
                (0..<8).filter { binary.data[byte] & (1 << UInt8($0)) != 0 }.map { byte * 8 + $0 }
            }
        default:
            throw .badValue("\(name) takes an Array, a number, or a BinData but received: \(operand)")
        }
    }
}
