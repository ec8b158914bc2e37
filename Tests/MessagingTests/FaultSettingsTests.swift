import BSON
import Messaging
import Testing

@Suite struct FaultSettingsTests {
    @Test func theDocumentFormRoundTripsAndPartialDocumentsChangeOnlyWhatTheyName() throws {
        let faults = FaultSettings(
            unregisteredTokens: ["b", "a"], unavailable: 3, internalErrors: 1, quotaExceeded: 2, rateLimit: 10,
            retryAfterSeconds: 30, latency: .milliseconds(250), connectionResets: 4)
        #expect(
            faults.document.extendedJSON(mode: .relaxed)
                == #"{"unregisteredTokens":["a","b"],"unavailable":3,"internalErrors":1,"quotaExceeded":2,"rateLimit":10,"retryAfterSeconds":30,"latencyMilliseconds":250,"connectionResets":4}"#
        )
        #expect(try FaultSettings(document: faults.document) == faults)
        let changed = try FaultSettings(document: ["unavailable": 0, "latencyMilliseconds": 5.0], base: faults)
        #expect(changed.unavailable == 0 && changed.latency == .milliseconds(5))
        #expect(changed.unregisteredTokens == ["a", "b"] && changed.connectionResets == 4)
        #expect(try FaultSettings(document: [:]) == FaultSettings())
        #expect(FaultSettings().isEmpty && !faults.isEmpty)
    }

    @Test func badDocumentsSayWhichFieldAndWhy() {
        #expect(throws: FaultSettingsError("'unavailable' must be a whole number from 0 to 1000000000")) {
            try FaultSettings(document: ["unavailable": -1])
        }
        #expect(throws: FaultSettingsError("'rateLimit' must be a whole number from 0 to 1000000000")) {
            try FaultSettings(document: ["rateLimit": 1.5])
        }
        #expect(throws: FaultSettingsError("'unregisteredTokens' must hold non-empty strings only")) {
            try FaultSettings(document: ["unregisteredTokens": [1]])
        }
        #expect(throws: FaultSettingsError.self) { try FaultSettings(document: ["latency": 5]) }
    }
}
