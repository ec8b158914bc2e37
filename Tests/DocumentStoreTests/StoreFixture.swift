import BSON
import Foundation
import TestSupport
import Testing

@testable import DocumentStore

/// The engines every store test runs on.
enum EngineKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case memory, sqlite, postgresql
    var testDescription: String { rawValue }

    /// The engines whose data outlives a store's close.
    static let durable: [EngineKind] = [.sqlite, .postgresql]
}

/// A fresh temporary directory, removed when the test is done, with the PostgreSQL database named after it dropped.
struct TemporaryDirectory: ~Copyable {
    let path: String

    init() {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("store-tests-\(UUID().uuidString)").path
    }

    /// The PostgreSQL database of the test that owns this directory.
    var database: String {
        "t_"
            + URL(fileURLWithPath: path).lastPathComponent.dropFirst(12).replacingOccurrences(of: "-", with: "")
            .lowercased()
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
        PostgreSQLServer.sharedIfStarted?.dropDatabase(database)
    }
}

/// The configuration of a store of `kind` kept under `directory`; for PostgreSQL, in a new database (on the
/// process's shared server) that the directory's deinit drops. Every call for one directory opens the same store.
func configuration(_ kind: EngineKind, directory: borrowing TemporaryDirectory) async throws -> StoreConfiguration {
    switch kind {
    case .memory: return StoreConfiguration(engine: .memory)
    case .sqlite: return StoreConfiguration(engine: .sqlite(directory: directory.path + "/data"))
    case .postgresql:
        let database = directory.database
        let url = try await offPool { try PostgreSQLServer.shared().database(database) }
        return try .postgresql(url: url)
    }
}

/// Opens a store of `kind` in a temporary directory, runs `body`, closes it.
func withStore(
    _ kind: EngineKind, configure: (inout StoreConfiguration) -> Void = { _ in },
    _ body: (DocumentStore) async throws -> Void
) async throws {
    let directory = TemporaryDirectory()
    var config = try await configuration(kind, directory: directory)
    configure(&config)
    let store = try await DocumentStore.open(config)
    do {
        try await body(store)
    } catch {
        await store.close()
        throw error
    }
    await store.close()
}

/// Collects the next `count` events of a stream (the stream must produce them).
func next(_ count: Int, from stream: ChangeStream) async throws -> [ChangeEvent] {
    var events: [ChangeEvent] = []
    guard count > 0 else { return events }
    for try await event in stream {
        events.append(event)
        if events.count == count { break }
    }
    return events
}

/// Expects `body` to throw a `StoreError` with `code`, and returns it.
@discardableResult
func expectStoreError(
    _ code: StoreError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void
) async -> StoreError? {
    do {
        try await body()
        Issue.record("expected StoreError \(code), nothing thrown", sourceLocation: sourceLocation)
    } catch let error as StoreError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected StoreError \(code), got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

/// `body`'s result, or a failure once `seconds` pass: a deadline that only keeps a missing wake-up from hanging the
/// suite, never a measure of speed.
func within<T: Sendable>(seconds: Double, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            return nil
        }
        guard let first = try await group.next(), let result = first else {
            group.cancelAll()
            throw DeadlinePassed(seconds: seconds)
        }
        group.cancelAll()
        return result
    }
}

struct DeadlinePassed: Error, CustomStringConvertible {
    var seconds: Double
    var description: String { "nothing came within \(seconds) s" }
}
