import BSON
import Foundation
import Functions
import Switchyard

/// The example app's catch-up: `queued` notifications in `product.pushNotification`, each to one device, sent by
/// its `onSentPushNotification` trigger (`sentPushNotification`: claim, multicast through the development outbox,
/// mark processed) over a SQLite store. Printed beside the fan-out rate above: catching up should cost about what
/// the emulator's sends cost, not a growing overhead per queued entry.
extension PushBenchmark {
    static let queued = 5_000

    static func drainRate(directory: String) async throws -> Double {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().path
        let app = try await SwitchyardApp.open(
            directory: repository, registry: functionRegistry,
            options: SwitchyardApp.Options(storage: .directory(directory), variables: [:]))
        try await app.start()
        let queue = app.store.database("product").collection("pushNotification")
        let date = BSON.datetime(BSONDate(millisecondsSinceEpoch: 1_700_000_000_000))
        let entries = (0..<queued).map { index -> BSONDocument in
            [
                "_id": .string("bench-\(index)"), "token": [.string("benchDevice\(index):APA91b" + repeatedX)],
                "date": date, "processed": false, "changes": ["volumeInfo.title": "Dune Messiah"],
                "userId": .string("reader-\(index % 100)"), "bookId": "42", "title": "Dune Messiah", "attempts": 0,
            ]
        }
        let clock = ContinuousClock()
        let start = clock.now
        _ = try await queue.insertMany(entries, ordered: false)
        try await app.awaitIdle()
        let elapsed = Timing.seconds(start.duration(to: clock.now))
        let unsent = try await queue.countDocuments(["processed": false])
        await app.stop()
        guard unsent == 0 else { throw BenchmarkFailure("the drain left \(unsent) of \(queued) notifications unsent") }
        return Double(queued) / elapsed
    }

    private static let repeatedX = String(repeating: "x", count: 140)
}
