import BSON

/// The compiled form of an expression. Operators whose arguments are evaluated eagerly share `call`; the
/// others decide themselves what to evaluate (short-circuits, bound variables).
indirect enum ExpressionNode: Sendable {
    case constant(BSON)
    /// `$a.b`: a path below `$$CURRENT`.
    case fieldPath([String])
    /// `$$name.a.b`.
    case variable(String, path: [String])
    case object([(String, ExpressionNode)])
    case array([ExpressionNode])
    case call(ExpressionOperator, [ExpressionNode])
    case cond(ExpressionNode, then: ExpressionNode, else: ExpressionNode)
    case ifNull([ExpressionNode])
    case switchCase(branches: [(ExpressionNode, ExpressionNode)], default: ExpressionNode?)
    case and([ExpressionNode])
    case or([ExpressionNode])
    case filter(input: ExpressionNode, name: String, cond: ExpressionNode, limit: ExpressionNode?)
    case map(input: ExpressionNode, name: String, body: ExpressionNode)
    case bind([(String, ExpressionNode)], body: ExpressionNode)

    /// Nesting deeper than this is refused rather than recursed into.
    static let maximumDepth = 150
}

extension ExpressionNode {
    init(parsing value: BSON, depth: Int) throws(StoreError) {
        guard depth < Self.maximumDepth else {
            throw .location(15983, "expression is nested more than \(Self.maximumDepth) levels deep")
        }
        switch value {
        case .string(let s) where s.hasPrefix("$"):
            self = try Self.parsePath(s)
        case .array(let elements):
            var nodes: [ExpressionNode] = []
            for element in elements { nodes.append(try ExpressionNode(parsing: element, depth: depth + 1)) }
            self = .array(nodes)
        case .document(let document):
            self = try Self.parseDocument(document, depth: depth)
        default:
            self = .constant(value)
        }
    }

    private static func parsePath(_ text: String) throws(StoreError) -> ExpressionNode {
        if text.hasPrefix("$$") {
            let components = text.dropFirst(2).split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            let name = components[0]
            let path = Array(components.dropFirst())
            try validatePathComponents(path)
            if !["ROOT", "CURRENT", "REMOVE", "NOW"].contains(name) { try validateVariableName(name) }
            return .variable(name, path: path)
        }
        guard text.count > 1 else { throw .location(16872, "'$' by itself is not a valid FieldPath") }
        let path = text.dropFirst().split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        try validatePathComponents(path)
        return .fieldPath(path)
    }

    static func validatePathComponents(_ components: [String]) throws(StoreError) {
        for component in components {
            if component.isEmpty { throw .location(15998, "FieldPath field names may not be empty strings.") }
            if component.hasPrefix("$") {
                throw .location(16410, "FieldPath field names may not start with '$'. Found: '\(component)'")
            }
        }
    }

    /// User variables start with a lowercase ASCII letter or a non-ASCII character, then letters, digits, `_`.
    static func validateVariableName(_ name: String) throws(StoreError) {
        guard let first = name.unicodeScalars.first else {
            throw .location(16869, "empty variable names are not allowed")
        }
        guard ("a"..."z").contains(first) || !first.isASCII else {
            throw .location(16870, "'\(name)' starts with an invalid character for a user variable name")
        }
        for scalar in name.unicodeScalars.dropFirst()
        where scalar.isASCII && !(scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_") {
            throw .location(16871, "'\(name)' contains an invalid character for a variable name: '\(scalar)'")
        }
    }

    private static func parseDocument(_ document: BSONDocument, depth: Int) throws(StoreError) -> ExpressionNode {
        guard let firstKey = document.keys.first else { return .object([]) }
        if firstKey.hasPrefix("$") {
            guard document.count == 1 else {
                throw .location(
                    15983,
                    "an expression specification must contain exactly one field, the name of the expression. "
                        + "Found \(document.count) fields in \(BSON.document(document).shellDescription)")
            }
            return try parseOperator(firstKey, document.values[0], depth: depth)
        }
        var fields: [(String, ExpressionNode)] = []
        for (key, value) in document {
            if key.hasPrefix("$") {
                throw .location(16410, "FieldPath field names may not start with '$'. Found: '\(key)'")
            }
            if key.contains(".") {
                throw .location(16412, "FieldPath field names may not contain '.'. Found: '\(key)'")
            }
            if key.isEmpty { throw .location(15998, "FieldPath field names may not be empty strings.") }
            fields.append((key, try ExpressionNode(parsing: value, depth: depth + 1)))
        }
        return .object(fields)
    }

    private static func parseArguments(_ value: BSON, depth: Int) throws(StoreError) -> [ExpressionNode] {
        if case .array(let elements) = value {
            var nodes: [ExpressionNode] = []
            for element in elements { nodes.append(try ExpressionNode(parsing: element, depth: depth + 1)) }
            return nodes
        }
        return [try ExpressionNode(parsing: value, depth: depth + 1)]
    }

    private static func parseOperator(_ name: String, _ argument: BSON, depth: Int) throws(StoreError)
        -> ExpressionNode
    {
        switch name {
        case "$literal":
            return .constant(argument)
        case "$cond":
            return try parseCond(argument, depth: depth)
        case "$ifNull":
            let arguments = try parseArguments(argument, depth: depth)
            guard arguments.count >= 2 else {
                throw .location(1_257_300, "$ifNull needs at least two arguments, had: \(arguments.count)")
            }
            return .ifNull(arguments)
        case "$switch":
            return try parseSwitch(argument, depth: depth)
        case "$and":
            return .and(try parseArguments(argument, depth: depth))
        case "$or":
            return .or(try parseArguments(argument, depth: depth))
        case "$filter":
            let spec = try namedArguments(
                of: argument, operator: name, allowed: ["input", "as", "cond", "limit"], required: ["input", "cond"],
                depth: depth)
            let variable = try boundName(spec.names["as"], operator: name)
            return .filter(
                input: spec.nodes["input"]!, name: variable, cond: spec.nodes["cond"]!, limit: spec.nodes["limit"])
        case "$map":
            let spec = try namedArguments(
                of: argument, operator: name, allowed: ["input", "as", "in"], required: ["input", "in"], depth: depth)
            let variable = try boundName(spec.names["as"], operator: name)
            return .map(input: spec.nodes["input"]!, name: variable, body: spec.nodes["in"]!)
        case "$let":
            return try parseLet(argument, depth: depth)
        default:
            guard let op = ExpressionOperator.named[name] else {
                throw StoreError(
                    code: .invalidPipelineOperator, message: "Unrecognized expression '\(name)'")
            }
            let arguments = try parseArguments(argument, depth: depth)
            try op.checkArity(arguments.count)
            return .call(op, arguments)
        }
    }

    private static func parseCond(_ argument: BSON, depth: Int) throws(StoreError) -> ExpressionNode {
        if case .document(let document) = argument {
            let spec = try namedArguments(
                of: .document(document), operator: "$cond", allowed: ["if", "then", "else"],
                required: ["if", "then", "else"], depth: depth)
            return .cond(spec.nodes["if"]!, then: spec.nodes["then"]!, else: spec.nodes["else"]!)
        }
        let arguments = try parseArguments(argument, depth: depth)
        guard arguments.count == 3 else {
            throw .location(16020, "Expression $cond takes exactly 3 arguments. \(arguments.count) were passed in.")
        }
        return .cond(arguments[0], then: arguments[1], else: arguments[2])
    }

    private static func parseSwitch(_ argument: BSON, depth: Int) throws(StoreError) -> ExpressionNode {
        guard case .document(let document) = argument else {
            throw .location(40060, "$switch requires an object as an argument, found: \(argument.typeName)")
        }
        var branches: [(ExpressionNode, ExpressionNode)] = []
        var fallback: ExpressionNode?
        for (key, value) in document {
            switch key {
            case "branches":
                guard case .array(let list) = value else {
                    throw .location(40061, "$switch expected an array for 'branches', found: \(value.typeName)")
                }
                for branch in list {
                    guard case .document(let b) = branch else {
                        throw .location(
                            40062, "$switch expected each branch to be an object, found: \(branch.typeName)")
                    }
                    var caseNode: ExpressionNode?
                    var thenNode: ExpressionNode?
                    for (bk, bv) in b {
                        switch bk {
                        case "case": caseNode = try ExpressionNode(parsing: bv, depth: depth + 1)
                        case "then": thenNode = try ExpressionNode(parsing: bv, depth: depth + 1)
                        default: throw .location(40063, "$switch found an unknown argument to a branch: \(bk)")
                        }
                    }
                    guard let caseNode else {
                        throw .location(40064, "$switch requires each branch have a 'case' expression")
                    }
                    guard let thenNode else {
                        throw .location(40065, "$switch requires each branch have a 'then' expression.")
                    }
                    branches.append((caseNode, thenNode))
                }
            case "default":
                fallback = try ExpressionNode(parsing: value, depth: depth + 1)
            default:
                throw .location(40067, "$switch found an unknown argument: \(key)")
            }
        }
        guard !branches.isEmpty else { throw .location(40068, "$switch requires at least one branch.") }
        return .switchCase(branches: branches, default: fallback)
    }

    private static func parseLet(_ argument: BSON, depth: Int) throws(StoreError) -> ExpressionNode {
        guard case .document(let document) = argument else {
            throw .location(16874, "$let only supports an object as its argument")
        }
        var bindings: [(String, ExpressionNode)]?
        var body: ExpressionNode?
        for (key, value) in document {
            switch key {
            case "vars":
                guard case .document(let vars) = value else {
                    throw .location(10065, "invalid parameter: expected an object (vars)")
                }
                var list: [(String, ExpressionNode)] = []
                for (name, expression) in vars {
                    try validateVariableName(name)
                    list.append((name, try ExpressionNode(parsing: expression, depth: depth + 1)))
                }
                bindings = list
            case "in":
                body = try ExpressionNode(parsing: value, depth: depth + 1)
            default:
                throw .location(16875, "Unrecognized parameter to $let: \(key)")
            }
        }
        guard let bindings else { throw .location(16876, "Missing 'vars' parameter to $let") }
        guard let body else { throw .location(16877, "Missing 'in' parameter to $let") }
        return .bind(bindings, body: body)
    }

    private struct NamedArguments {
        var nodes: [String: ExpressionNode] = [:]
        var names: [String: BSON] = [:]
    }

    /// Parses `{input: …, cond: …}`-shaped arguments; `as` is kept raw since it names a variable.
    private static func namedArguments(
        of argument: BSON, operator name: String, allowed: Set<String>, required: [String], depth: Int
    ) throws(StoreError) -> NamedArguments {
        guard case .document(let document) = argument else {
            throw .location(28646, "\(name) only supports an object as its argument")
        }
        var result = NamedArguments()
        for (key, value) in document {
            guard allowed.contains(key) else { throw .location(28647, "Unrecognized parameter to \(name): \(key)") }
            if key == "as" {
                result.names[key] = value
            } else {
                result.nodes[key] = try ExpressionNode(parsing: value, depth: depth + 1)
            }
        }
        for key in required where result.nodes[key] == nil {
            throw .location(28648, "Missing '\(key)' parameter to \(name)")
        }
        return result
    }

    private static func boundName(_ value: BSON?, operator name: String) throws(StoreError) -> String {
        guard let value else { return "this" }
        guard case .string(let variable) = value else {
            throw .location(28649, "'as' of \(name) must be a string, found: \(value.typeName)")
        }
        try validateVariableName(variable)
        return variable
    }
}
