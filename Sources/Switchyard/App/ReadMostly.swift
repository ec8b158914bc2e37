import Foundation

/// A value read by every served request and changed rarely, behind reader-writer locks: readers take it together
/// and never wait on each other, where a mutex has each of a busy server's threads queue (and, on a small
/// machine, spin) behind the last.
///
/// Readers take one of several locks, chosen by their thread, so that threads reading at once do not all write
/// the same lock word (a cache line each core would take from the others on every read); a writer takes them all.
///
/// ```swift
/// let claims = ReadMostly<[String: Claims]>([:])
/// let kept = claims.read { $0[token] }
/// claims.write { $0[token] = verified }
/// ```
package final class ReadMostly<Value: Sendable>: @unchecked Sendable {
    // Unchecked: `value` is only touched with a lock held: one shard's, shared, for `read`; every shard's,
    // exclusive, for `write`.
    private var value: Value
    private let shards: UnsafeMutableRawPointer

    /// Locks; a power of two, more than a small server has threads reading at once.
    private static var shardCount: Int { 16 }
    /// Bytes between locks: two cache lines, so that no two locks share one (nor one's neighbour prefetched).
    private static var shardStride: Int { 128 }

    package init(_ value: Value) {
        self.value = value
        shards = UnsafeMutableRawPointer.allocate(
            byteCount: Self.shardCount * Self.shardStride, alignment: Self.shardStride)
        for index in 0..<Self.shardCount { pthread_rwlock_init(lock(index), nil) }
    }

    deinit {
        for index in 0..<Self.shardCount { pthread_rwlock_destroy(lock(index)) }
        shards.deallocate()
    }

    private func lock(_ index: Int) -> UnsafeMutablePointer<pthread_rwlock_t> {
        (shards + index * Self.shardStride).assumingMemoryBound(to: pthread_rwlock_t.self)
    }

    /// The calling thread's lock: its thread handle, hashed (handles lie far apart, at their stacks).
    private var readerLock: UnsafeMutablePointer<pthread_rwlock_t> {
        #if canImport(Darwin)
            let thread = UInt(bitPattern: pthread_self())
        #else
            let thread = UInt(pthread_self())
        #endif
        let hash = thread &* 0x9E37_79B9_7F4A_7C15
        return lock(Int(hash >> (UInt.bitWidth - Self.shardCount.trailingZeroBitCount)))
    }

    /// Runs `body` with the value while other readers may too; keep it short and free of writes.
    package func read<Result>(_ body: (borrowing Value) throws -> Result) rethrows -> Result {
        let lock = readerLock
        pthread_rwlock_rdlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body(value)
    }

    /// Runs `body` with the value alone.
    package func write<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        for index in 0..<Self.shardCount { pthread_rwlock_wrlock(lock(index)) }
        defer { for index in 0..<Self.shardCount { pthread_rwlock_unlock(lock(index)) } }
        return try body(&value)
    }
}
