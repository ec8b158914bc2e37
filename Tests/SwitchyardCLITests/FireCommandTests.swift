import Foundation
import TestSupport
import Testing

@Suite struct FireCommandTests {
    @Test func anUnknownTriggerOrMissingEventIsBadInput() throws {
        let app = try TemporaryDirectory()
        try app.write("triggers.yaml", pingApp)
        let unknown = try switchyard(["fire", "sendBooksTopic", "--event", "event.json"], in: app.path)
        #expect(unknown.status == 2)
        #expect(unknown.stderr == "switchyard fire: no trigger named 'sendBooksTopic'\n")
        let missing = try switchyard(["fire"], in: app.path)
        #expect(missing.status == 2)
        #expect(missing.stderr.hasPrefix("switchyard fire: missing TRIGGER, the trigger to fire"))
    }
}
