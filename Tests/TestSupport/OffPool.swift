import Foundation

/// Runs blocking work (a `recv`, a wait on a lock) on a thread of its own and awaits its result: blocking one of the
/// concurrency pool's threads (two on these machines) would hold up the server work the wait is for, and in a test
/// run every other test with it.
public func offPool<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
    }
}
