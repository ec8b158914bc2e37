import CYAML

/// Parses YAML text into `YAMLNode`s with libyaml. Anchors and aliases are resolved; nesting is bounded so
/// hostile input cannot exhaust the stack.
package enum YAMLParser {
    static let maximumDepth = 256

    /// Parses the first document of `text`. An empty file yields an empty mapping.
    package static func parse(_ text: String, file: String) throws(ConfigurationError) -> YAMLNode {
        let input = Array(text.utf8)
        // libyaml asserts on a NULL input buffer, which an empty array may hand it.
        guard !input.isEmpty else { return YAMLNode(.mapping([]), at: SourceLocation(line: 1, column: 1)) }
        // libyaml keeps pointers to the parser and the input for the whole parse: heap-allocate the parser
        // and keep `input` alive until the end of this scope.
        let parser = UnsafeMutablePointer<yaml_parser_t>.allocate(capacity: 1)
        defer { parser.deallocate() }
        guard yaml_parser_initialize(parser) == 1 else {
            throw ConfigurationError(file: file, location: nil, message: "could not initialise the YAML parser")
        }
        defer { yaml_parser_delete(parser) }
        return try input.withUnsafeBufferPointer { buffer throws(ConfigurationError) in
            yaml_parser_set_input_string(parser, buffer.baseAddress, buffer.count)
            var reader = EventReader(parser: parser, file: file)
            return try reader.readStream()
        }
    }
}

/// Walks libyaml's event stream, building nodes recursively (depth-limited).
private struct EventReader {
    let parser: UnsafeMutablePointer<yaml_parser_t>
    let file: String
    var anchors: [String: YAMLNode] = [:]
    /// The flow collections (`[`, `{`) being read, innermost last: an error libyaml finds only at a later line
    /// (end of input, the next key) is one of the innermost not being closed where it should have been.
    var openFlows: [(bracket: Character, mark: yaml_mark_t)] = []

    init(parser: UnsafeMutablePointer<yaml_parser_t>, file: String) {
        self.parser = parser
        self.file = file
    }

    mutating func readStream() throws(ConfigurationError) -> YAMLNode {
        var streamStart = try next()
        yaml_event_delete(&streamStart)
        var document: YAMLNode?
        while true {
            var current = try next()
            defer { yaml_event_delete(&current) }
            switch current.type {
            case YAML_DOCUMENT_START_EVENT:
                if document == nil {
                    document = try readNode(try nextOwned(), depth: 0)
                } else {
                    throw error("only one YAML document is allowed in a configuration file", at: current.start_mark)
                }
            case YAML_DOCUMENT_END_EVENT:
                continue
            case YAML_STREAM_END_EVENT:
                let empty = YAMLNode(.mapping([]), at: SourceLocation(line: 1, column: 1))
                guard let document, !document.isNull else { return empty }
                return document
            default:
                throw error("unexpected YAML event", at: current.start_mark)
            }
        }
    }

    /// Reads the node that starts with `event` (which this function deletes).
    mutating func readNode(_ owned: OwnedEvent, depth: Int) throws(ConfigurationError) -> YAMLNode {
        var event = owned.event
        defer { yaml_event_delete(&event) }
        let location = Self.location(event.start_mark)
        guard depth < YAMLParser.maximumDepth else {
            throw error("YAML nested deeper than \(YAMLParser.maximumDepth) levels", at: event.start_mark)
        }
        switch event.type {
        case YAML_ALIAS_EVENT:
            let name = String(cString: event.data.alias.anchor)
            guard let node = anchors[name] else { throw error("unknown alias '*\(name)'", at: event.start_mark) }
            return node
        case YAML_SCALAR_EVENT:
            let scalar = event.data.scalar
            let text = String(decoding: UnsafeBufferPointer(start: scalar.value, count: scalar.length), as: UTF8.self)
            let node = YAMLNode(.scalar(text, isPlain: scalar.style == YAML_PLAIN_SCALAR_STYLE), at: location)
            remember(node, anchor: scalar.anchor)
            return node
        case YAML_SEQUENCE_START_EVENT:
            let anchor = event.data.sequence_start.anchor.map { String(cString: $0) }
            let isFlow = event.data.sequence_start.style == YAML_FLOW_SEQUENCE_STYLE
            if isFlow { openFlows.append(("[", event.start_mark)) }
            var items: [YAMLNode] = []
            while true {
                let child = try nextOwned()
                if child.event.type == YAML_SEQUENCE_END_EVENT {
                    var end = child.event
                    yaml_event_delete(&end)
                    break
                }
                items.append(try readNode(child, depth: depth + 1))
            }
            if isFlow { openFlows.removeLast() }
            let node = YAMLNode(.sequence(items), at: location)
            if let anchor { anchors[anchor] = node }
            return node
        case YAML_MAPPING_START_EVENT:
            let anchor = event.data.mapping_start.anchor.map { String(cString: $0) }
            let isFlow = event.data.mapping_start.style == YAML_FLOW_MAPPING_STYLE
            if isFlow { openFlows.append(("{", event.start_mark)) }
            var pairs: [(key: YAMLNode, value: YAMLNode)] = []
            while true {
                let child = try nextOwned()
                if child.event.type == YAML_MAPPING_END_EVENT {
                    var end = child.event
                    yaml_event_delete(&end)
                    break
                }
                let key = try readNode(child, depth: depth + 1)
                if let text = key.scalar, pairs.contains(where: { $0.key.scalar == text }) {
                    throw ConfigurationError(file: file, location: key.location, message: "duplicate key '\(text)'")
                }
                let value = try readNode(try nextOwned(), depth: depth + 1)
                pairs.append((key, value))
            }
            if isFlow { openFlows.removeLast() }
            let node = YAMLNode(.mapping(pairs), at: location)
            if let anchor { anchors[anchor] = node }
            return node
        default:
            throw error("unexpected YAML event", at: event.start_mark)
        }
    }

    private mutating func remember(_ node: YAMLNode, anchor: UnsafeMutablePointer<yaml_char_t>?) {
        if let anchor { anchors[String(cString: anchor)] = node }
    }

    /// An event the caller must delete (or hand to `readNode`, which deletes it).
    struct OwnedEvent {
        var event: yaml_event_t
    }

    mutating func nextOwned() throws(ConfigurationError) -> OwnedEvent {
        OwnedEvent(event: try next())
    }

    mutating func next() throws(ConfigurationError) -> yaml_event_t {
        var event = yaml_event_t()
        guard yaml_parser_parse(parser, &event) == 1 else {
            let problem = parser.pointee.problem.map { String(cString: $0) } ?? "invalid YAML"
            let mark = parser.pointee.problem_mark
            if let open = openFlows.last, problem.hasPrefix("did not find expected"), mark.line > open.mark.line {
                let found = Self.location(mark)
                throw error(
                    "this '\(open.bracket)' is not closed (\(problem) at \(found.line):\(found.column))", at: open.mark)
            }
            var message = problem
            if let context = parser.pointee.context.map({ String(cString: $0) }) {
                message = "\(problem) (\(context))"
            }
            throw error(message, at: parser.pointee.problem_mark)
        }
        return event
    }

    func error(_ message: String, at mark: yaml_mark_t) -> ConfigurationError {
        ConfigurationError(file: file, location: Self.location(mark), message: message)
    }

    /// libyaml's marks are 0-based; people count from 1.
    static func location(_ mark: yaml_mark_t) -> SourceLocation {
        SourceLocation(line: Int(mark.line) + 1, column: Int(mark.column) + 1)
    }
}
