import BSON
import Foundation
import Testing

@testable import DocumentStore

/// The engines every store test runs on.
enum EngineKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case memory, sqlite
    var testDescription: String { rawValue }
}

/// A fresh temporary directory, removed when the test is done.
struct TemporaryDirectory: ~Copyable {
    let path: String

    init() {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("store-tests-\(UUID().uuidString)").path
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

func configuration(_ kind: EngineKind, directory: String) -> StoreConfiguration {
    switch kind {
    case .memory: StoreConfiguration(engine: .memory)
    case .sqlite: StoreConfiguration(engine: .sqlite(directory: directory + "/data"))
    }
}

/// Opens a store of `kind` in a temporary directory, runs `body`, closes it.
func withStore(
    _ kind: EngineKind, configure: (inout StoreConfiguration) -> Void = { _ in },
    _ body: (DocumentStore) async throws -> Void
) async throws {
    let directory = TemporaryDirectory()
    var config = configuration(kind, directory: directory.path)
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
