import Foundation

/// A value read by every served request and changed rarely, behind a reader-writer lock: readers take it
/// together and never wait on each other, where a mutex has each of a busy server's threads queue
/// (and, on a small machine, spin) behind the last.
///
/// ```swift
/// let claims = ReadMostly<[String: Claims]>([:])
/// let kept = claims.read { $0[token] }
/// claims.write { $0[token] = verified }
/// ```
package final class ReadMostly<Value: Sendable>: @unchecked Sendable {
    // Unchecked: `value` is only touched with `lock` held, shared for `read` and exclusive for `write`; the lock
    // also makes the runtime's exclusivity check of every read redundant.
    @exclusivity(unchecked) private var value: Value
    private let lock = UnsafeMutablePointer<pthread_rwlock_t>.allocate(capacity: 1)

    package init(_ value: Value) {
        self.value = value
        pthread_rwlock_init(lock, nil)
    }

    deinit {
        pthread_rwlock_destroy(lock)
        lock.deallocate()
    }

    /// Runs `body` with the value while other readers may too; keep it short and free of writes.
    package func read<Result>(_ body: (borrowing Value) throws -> Result) rethrows -> Result {
        pthread_rwlock_rdlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body(value)
    }

    /// Runs `body` with the value alone.
    package func write<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_rwlock_wrlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body(&value)
    }
}
