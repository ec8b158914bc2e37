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

    /// `pauses`: before the inserts and after the drain, prints `drain: ready` / `drain: drained` and waits for a
    /// line on standard input, so that a profiler can be zeroed and dumped around the catch-up alone
    /// (`switchyard-bench push-drain`).
    static func drainRate(directory: String, count: Int = queued, pauses: Bool = false) async throws -> Double {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().path
        let app = try await SwitchyardApp.open(
            directory: repository, registry: functionRegistry,
            options: SwitchyardApp.Options(storage: .directory(directory), variables: [:]))
        try await app.start()
        let queue = app.store.database("product").collection("pushNotification")
        let date = BSON.datetime(BSONDate(millisecondsSinceEpoch: 1_700_000_000_000))
        let entries = (0..<count).map { index -> BSONDocument in
            [
                "_id": .string("bench-\(index)"), "token": [.string("benchDevice\(index):APA91b" + repeatedX)],
                "date": date, "processed": false, "changes": ["volumeInfo.title": "Dune Messiah"],
                "userId": .string("reader-\(index % 100)"), "bookId": "42", "title": "Dune Messiah", "attempts": 0,
            ]
        }
        if pauses { waitForGoAhead("ready") }
        let clock = ContinuousClock()
        let start = clock.now
        _ = try await queue.insertMany(entries, ordered: false)
        try await app.awaitIdle()
        let elapsed = Timing.seconds(start.duration(to: clock.now))
        if pauses { waitForGoAhead("drained") }
        let unsent = try await queue.countDocuments(["processed": false])
        await app.stop()
        guard unsent == 0 else { throw BenchmarkFailure("the drain left \(unsent) of \(count) notifications unsent") }
        return Double(count) / elapsed
    }

    /// `switchyard-bench push-drain COUNT [--pause]`: the catch-up alone, in a scratch directory, printing
    /// `drained= rate=`; what a profiler runs (see Benchmarks/README.md).
    static func drainAlone(_ arguments: [String]) async throws {
        guard let count = arguments.first.flatMap({ Int($0) }), count > 0 else {
            print("usage: switchyard-bench push-drain COUNT [--pause]")
            return
        }
        let directory = try makeScratchDirectory("push-drain")
        defer { removeScratchDirectory(directory) }
        let rate = try await drainRate(
            directory: directory + "/drain", count: count, pauses: arguments.contains("--pause"))
        print(String(format: "drained=%d rate=%.0f", count, rate))
    }

    /// Tells the profiler's driver where the run is, then waits for its go-ahead (a line on standard input). It
    /// polls rather than blocking in `read`: valgrind takes `callgrind_control`'s commands only while the program
    /// runs code.
    private static func waitForGoAhead(_ marker: String) {
        print("drain: \(marker)")
        fflush(nil)
        var input = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        while poll(&input, 1, 10) == 0 {}
        _ = readLine()
    }

    private static let repeatedX = String(repeating: "x", count: 140)
}
