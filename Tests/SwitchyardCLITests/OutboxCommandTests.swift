import Foundation
import TestSupport
import Testing

@Suite struct OutboxCommandTests {
    @Test func printsNothingBeforeAnyMessage() throws {
        let app = try TemporaryDirectory()
        try app.write("triggers.yaml", pingApp)
        let none = try switchyard(["outbox"], in: app.path)
        #expect(none.status == 0)
        #expect(none.stderr == "no messages recorded yet: .switchyard holds no store\n")
        #expect(try switchyard(["call", "ping"], in: app.path).status == 0)
        let empty = try switchyard(["outbox", "--limit", "5"], in: app.path)
        #expect(empty.status == 0)
        #expect(empty.stdout.isEmpty && empty.stderr.isEmpty)
    }
}
