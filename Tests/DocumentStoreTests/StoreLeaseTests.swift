import Foundation
import Synchronization
import TestSupport
import Testing

@testable import DocumentStore

@Suite struct StoreLeaseTests {
    @Test func aStoreAloneOnItsDataHoldsEveryLeaseAtOnce() async throws {
        let store = try await DocumentStore.open(.memory)
        let lease = store.lease("job") { _ in Issue.record("a lease of a store alone never changes") }
        #expect(lease.tenure != nil)
        #expect(!store.sharesLeases)
        await store.close()
    }

    @Test func oneInstanceOnASharedDatabaseHoldsALeaseUntilItsConnectionIsTerminated() async throws {
        let directory = TemporaryDirectory()
        let configuration = try await configuration(.postgresql, directory: directory)
        let server = try await offPool { try PostgreSQLServer.shared() }
        let first = try await DocumentStore.open(configuration)
        let second = try await DocumentStore.open(configuration)
        let heard = Mutex<[String]>([])
        let held = first.lease("job") { held in heard.withLock { $0.append("first \(held)") } }
        try await within(seconds: 60) { while held.tenure == nil { try await Task.sleep(for: .milliseconds(10)) } }
        let waiting = second.lease("job") { held in heard.withLock { $0.append("second \(held)") } }
        // The second instance tries every 200 ms and never gets it while the first holds it.
        try await Task.sleep(for: .milliseconds(500))
        #expect(waiting.tenure == nil)
        let firstTenure = try #require(held.tenure)
        try await offPool {
            try server.execute(
                """
                SELECT pg_terminate_backend(l.pid) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
                WHERE l.locktype = 'advisory' AND l.granted AND a.datname = '\(directory.database)'
                AND a.application_name = '\(PostgreSQLLeaseKeeper.applicationName)'
                """)
        }
        // The first hears the loss, and one of the two holds it again.
        try await within(seconds: 60) {
            while held.holds(firstTenure) || (held.tenure == nil && waiting.tenure == nil) {
                try await Task.sleep(for: .milliseconds(10))
            }
        }
        #expect(heard.withLock { $0.contains("first false") })
        #expect((held.tenure == nil) != (waiting.tenure == nil))
        // Released, it passes to the other instance.
        let (holder, other) = held.tenure != nil ? (held, waiting) : (waiting, held)
        holder.release()
        try await within(seconds: 60) { while other.tenure == nil { try await Task.sleep(for: .milliseconds(10)) } }
        #expect(holder.tenure == nil)
        await first.close()
        await second.close()
    }
}
