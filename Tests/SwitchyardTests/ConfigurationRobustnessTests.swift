import Foundation
import Switchyard
import Testing

/// Seeded mutations of valid configuration files: the readers must never crash and must always answer with
/// either a model or errors that carry positions. (A libFuzzer harness can drive the same entry points.)
@Suite struct ConfigurationRobustnessTests {
    /// SplitMix64, so every run mutates the same way and a failure can be reproduced from its iteration.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let triggers = """
        appId: books
        triggers:
          - name: sendBooksTopic
            type: database
            function: sendBooksTopic
            database: product
            collection: book
            operations: [INSERT, DELETE]
            fullDocument: true
            match: {fullDocument.price: {$gt: 10}, owner: {$oid: "64b7f0c2a1b2c3d4e5f60718"}, at: {$date: "2024-01-01T00:00:00Z"}}
            retry: {maxAttempts: 3, initialBackoff: 1s, maxBackoff: 30s}
          - name: retry
            type: scheduled
            function: retryUnprocessedNotifications
            schedule: "*/5 9-17 * JAN-MAR MON-FRI"
          - name: onLogin
            type: authentication
            function: createUserData
            operation: login
            providers: [anon-user, local-userpass]
        functions:
          createUserData: {private: true, canEvaluate: {"%%user.id": {$exists: true}}}
        auth:
          providers: [anon-user]
          customUserData: {database: product, collection: users, userIdField: userId}
        """

    static let values = #"""
        {
          "booksTopic": "books",
          "limits": {"push": 3, "ratio": 0.5, "ids": [{"$oid": "64b7f0c2a1b2c3d4e5f60718"}]},
          "fcm": {"secret": "fcmServerKey"},
          "legacy": {"value": "apiToken", "from_secret": true},
          "emoji": "\ud83d\ude00"
        }
        """#

    static let fragments: [[UInt8]] = [
        ":", "-", "[", "]", "{", "}", "\"", "'", "\n", "  ", "&a ", "*a", "$oid", "$date", "!!str ", "#", ",", "\t",
        "~", "null", "true", "1e999", "0x", "*/0", "\\u", "\\ud800", "|\n", ">-\n", "? ", "%YAML 1.1\n", "---\n",
    ].map { Array($0.utf8) }

    static func mutate(_ bytes: [UInt8], using generator: inout SeededGenerator) -> [UInt8] {
        var bytes = bytes
        for _ in 0..<Int.random(in: 1...4, using: &generator) {
            guard !bytes.isEmpty else { break }
            let position = Int.random(in: 0..<bytes.count, using: &generator)
            switch Int.random(in: 0..<5, using: &generator) {
            case 0: bytes[position] ^= UInt8(1 << Int.random(in: 0..<8, using: &generator))
            case 1: bytes.insert(UInt8.random(in: 0...255, using: &generator), at: position)
            case 2: bytes.insert(contentsOf: fragments.randomElement(using: &generator) ?? [], at: position)
            case 3:
                bytes.removeSubrange(position..<min(bytes.count, position + Int.random(in: 1...8, using: &generator)))
            default: bytes.removeSubrange(position...)
            }
        }
        return bytes
    }

    func expectPositioned(_ errors: ConfigurationErrors, lines: Int, iteration: Int) {
        #expect(!errors.errors.isEmpty, "iteration \(iteration): an empty error list")
        for error in errors.errors {
            guard let location = error.location else {
                Issue.record("iteration \(iteration): no position in \(error)")
                continue
            }
            #expect(
                location.line >= 1 && location.line <= lines + 1 && location.column >= 1,
                "iteration \(iteration): \(error)")
        }
    }

    @Test func mutatedTriggersFilesNeverCrashTheReader() {
        var generator = SeededGenerator(state: 0x5EED_0001)
        let original = Array(Self.triggers.utf8)
        #expect(throws: Never.self) { try AppDefinition.parse(Self.triggers) }
        var rejected = 0
        for iteration in 0..<3000 {
            let text = String(decoding: Self.mutate(original, using: &generator), as: UTF8.self)
            do {
                _ = try AppDefinition.parse(text, registeredFunctions: ["sendBooksTopic", "createUserData"])
            } catch {
                rejected += 1
                expectPositioned(
                    error, lines: text.split(separator: "\n", omittingEmptySubsequences: false).count,
                    iteration: iteration)
            }
        }
        // The mutations must reach the validator, not only the YAML parser's error paths.
        #expect(rejected > 1000 && rejected < 3000)
    }

    @Test func mutatedValuesFilesNeverCrashTheReader() {
        var generator = SeededGenerator(state: 0x5EED_0002)
        let original = Array(Self.values.utf8)
        #expect(throws: Never.self) { try ValueDefinitions.parse(Self.values) }
        for iteration in 0..<2000 {
            let text = String(decoding: Self.mutate(original, using: &generator), as: UTF8.self)
            do {
                _ = try ValueDefinitions.parse(text)
            } catch {
                expectPositioned(
                    error, lines: text.split(separator: "\n", omittingEmptySubsequences: false).count,
                    iteration: iteration)
            }
        }
    }

    @Test func aliasExpansionIsBounded() {
        var text = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
        for level in 1...12 {
            text +=
                "a\(level): &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ")
                + "]\n"
        }
        text +=
            "triggers:\n  - {name: t, type: database, function: f, database: d, operations: [INSERT], match: {x: *a12}}\n"
        do {
            _ = try AppDefinition.parse(text)
            Issue.record("an alias bomb was accepted")
        } catch {
            #expect(error.errors.contains { $0.message.contains("document too large") })
        }
    }
}
