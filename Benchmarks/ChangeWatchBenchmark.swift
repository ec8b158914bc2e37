import BSON
import Foundation
import Messaging
import Switchyard
import SwitchyardServer
import Synchronization
import TestSupport

/// What the SDKs' `collection.watch()` costs a served app: 100 streams open over real HTTP on loopback (the
/// streaming `functions/call` realm-core sends), one insert at a time committed to the store, and the time from
/// the start of each commit until each stream has read that insert's change event. The commit's own time is
/// inside the figure, so it is never flattered by an event that arrived before the write was acknowledged.
/// Goal: p99 ≤ 5 ms from commit.
enum ChangeWatchBenchmark {
    static let benchmark = Benchmark(
        name: "change-watch", summary: "SDK watch: one change event to 100 open streams, latency from commit",
        run: run)

    static let streams = 100
    static let commits = 200
    static let goal = 5.0

    static func run() async throws {
        // A rule that lets every user read: the streams pay for the rule check a deployed app makes.
        let served = try await ServedBenchApp.start(
            rules: """
                rules:
                  collections:
                    - database: bench
                      collection: watched
                      roles:
                        - {name: everyone, apply_when: {}, read: true}
                """)
        let (app, server, token) = (served.app, served.server, served.token)
        let call =
            #"{"arguments": [{"database": "bench", "collection": "watched"}], "name": "watch", "service": "mongodb-atlas"}"#
        let request = Data(call.utf8).base64EncodedString().addingPercentEncoding(
            withAllowedCharacters: .alphanumerics)!
        let path = "/api/client/v2.0/app/bench/functions/call?baas_request=\(request)&baas_at=\(token)"
        let readers = try (0..<streams).map { _ in try EventArrivals(port: server.http.port, path: path) }
        try await offPool { for reader in readers { try reader.awaitHead() } }
        // Every stream sees a first event before timing starts: each is subscribed, not still opening.
        let collection = app.store.database("bench").collection("watched")
        try await collection.insertOne(["_id": .int64(-1)])
        try await offPool { for reader in readers { _ = try reader.awaitEvents(1) } }

        var latencies: [Double] = []
        latencies.reserveCapacity(streams * commits)
        for index in 0..<commits {
            let start = ContinuousClock.now
            try await collection.insertOne(["_id": .int64(Int64(index)), "title": .string("book \(index)")])
            let arrivals = try await offPool { try readers.map { try $0.awaitEvents(index + 2) } }
            latencies += arrivals.map { Timing.seconds($0 - start) * 1000 }
        }
        for reader in readers { reader.close() }
        let p50 = percentile(latencies, 0.5)
        let p99 = percentile(latencies, 0.99)
        print(
            "change-watch: \(streams) open watch streams, \(commits) commits: change event p50 \(String(format: "%.2f", p50)) ms, p99 \(String(format: "%.2f", p99)) ms from commit"
                + " | goal p99 ≤ \(Int(goal)) ms: \(p99 <= goal ? "met" : "NOT met")")
        await served.stop()
    }
}

/// One open `watch` stream read on a thread of its own (a blocking read on the concurrency pool would starve the
/// server): the instant each change event's `data:` line arrived, in order.
private final class EventArrivals: Sendable {
    private let descriptor: Int32
    private let state = Mutex<(head: Bool, arrivals: [ContinuousClock.Instant], closed: Bool, received: [UInt8])>(
        (false, [], false, []))
    private let changed = NSCondition()

    init(port: UInt16, path: String) throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard descriptor >= 0, connected == 0 else { throw BenchmarkFailure("cannot connect: errno \(errno)") }
        self.descriptor = descriptor
        let request = Array(
            "GET \(path) HTTP/1.0\r\nHost: 127.0.0.1:\(port)\r\nAccept: text/event-stream\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
        Thread { [self] in read() }.start()
    }

    /// Reads until the server closes: the head, then each `data:` line's arrival time.
    private func read() {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var pending: [UInt8] = []
        var inBody = false
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            let now = ContinuousClock.now
            pending += buffer[..<count]
            var found = 0
            var headSeen = false
            if !inBody, let end = pending.firstRange(of: [13, 10, 13, 10]) {
                pending.removeSubrange(..<end.upperBound)
                inBody = true
                headSeen = true
            }
            if inBody {
                while let end = pending.firstIndex(of: 10) {
                    if pending[..<end].starts(with: Array("data: ".utf8)) { found += 1 }
                    pending.removeSubrange(...end)
                }
            }
            changed.lock()
            state.withLock { state in
                if state.received.count < 4096 { state.received += buffer[..<min(count, 4096)] }
                if headSeen { state.head = true }
                state.arrivals += repeatElement(now, count: found)
            }
            changed.broadcast()
            changed.unlock()
        }
        changed.lock()
        state.withLock { $0.closed = true }
        changed.broadcast()
        changed.unlock()
    }

    func awaitHead() throws {
        try wait { state in state.head ? () : nil }
    }

    /// The arrival of the `count`th event, once it came.
    func awaitEvents(_ count: Int) throws -> ContinuousClock.Instant {
        try wait { state in state.arrivals.count >= count ? state.arrivals[count - 1] : nil }
    }

    private func wait<T>(
        _ ready: ((head: Bool, arrivals: [ContinuousClock.Instant], closed: Bool, received: [UInt8])) -> T?
    ) throws -> T {
        let deadline = Date().addingTimeInterval(30)
        changed.lock()
        defer { changed.unlock() }
        while true {
            let (value, closed, received) = state.withLock { (ready($0), $0.closed, $0.received) }
            if let value { return value }
            if closed {
                throw BenchmarkFailure("a watch stream ended: \(String(decoding: received.prefix(600), as: UTF8.self))")
            }
            guard changed.wait(until: deadline) else { throw BenchmarkFailure("a watch stream stayed silent for 30 s") }
        }
    }

    func close() { shutdown(descriptor, Int32(SHUT_RDWR)) }
}
