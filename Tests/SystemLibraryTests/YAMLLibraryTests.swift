import CYAML
import Testing

@Suite struct YAMLLibraryTests {
    @Test func parsesScalarsWithTheirPositions() throws {
        let input = Array("name: sendBooksTopic\noperations: [INSERT, DELETE]\n".utf8)
        // libyaml keeps pointers to the parser and the input for the whole parse (PITFALLS.md).
        let parser = UnsafeMutablePointer<yaml_parser_t>.allocate(capacity: 1)
        defer { parser.deallocate() }
        #expect(yaml_parser_initialize(parser) == 1)
        defer { yaml_parser_delete(parser) }
        var scalars: [(String, Int)] = []
        try input.withUnsafeBufferPointer { buffer in
            yaml_parser_set_input_string(parser, buffer.baseAddress, buffer.count)
            var event = yaml_event_t()
            while true {
                guard yaml_parser_parse(parser, &event) == 1 else {
                    Issue.record("libyaml failed to parse")
                    return
                }
                defer { yaml_event_delete(&event) }
                if event.type == YAML_SCALAR_EVENT {
                    let scalar = event.data.scalar
                    let text = String(
                        decoding: UnsafeBufferPointer(start: scalar.value, count: scalar.length), as: UTF8.self)
                    scalars.append((text, Int(event.start_mark.line) + 1))
                }
                if event.type == YAML_STREAM_END_EVENT { break }
            }
            _ = try #require(scalars.first)
        }
        #expect(scalars.map(\.0) == ["name", "sendBooksTopic", "operations", "INSERT", "DELETE"])
        #expect(scalars.map(\.1) == [1, 1, 2, 2, 2])
    }
}
