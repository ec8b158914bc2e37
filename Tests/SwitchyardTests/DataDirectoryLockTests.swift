import Foundation
import Switchyard
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite struct DataDirectoryLockTests {
    @Test func oneProcessAtATimeHoldsADataDirectory() throws {
        let directory = try TemporaryDirectory()
        #expect(!DataDirectoryLock.isHeld(directory.path))
        var lock: DataDirectoryLock? = try DataDirectoryLock.acquire(directory.path)
        #expect(DataDirectoryLock.isHeld(directory.path))
        let refusal = #expect(throws: DataDirectoryLock.Failure.self) { try DataDirectoryLock.acquire(directory.path) }
        #expect(refusal?.description.contains("is in use by another switchyard process") == true)
        withExtendedLifetime(lock) {}
        lock = nil
        #expect(!DataDirectoryLock.isHeld(directory.path))
        _ = try DataDirectoryLock.acquire(directory.path)
    }

    /// A running server is found however many other locks the machine holds: the kernel's lock table then runs
    /// over many pages (a suite's SQLite databases hold hundreds), and a read of its first page missed the
    /// server's lock, so `switchyard redeliver` refused with "in use" instead of asking the server.
    @Test func aHeldDirectoryIsSeenAmongHundredsOfOtherLocks() throws {
        let directory = try TemporaryDirectory()
        let lock = try DataDirectoryLock.acquire(directory.path)
        let others = try TemporaryDirectory()
        var descriptors: [Int32] = []
        defer { for descriptor in descriptors { close(descriptor) } }
        for index in 0..<300 {
            let descriptor = open("\(others.path)/\(index)", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            try #require(descriptor >= 0 && flock(descriptor, LOCK_EX | LOCK_NB) == 0)
            descriptors.append(descriptor)
        }
        #expect(DataDirectoryLock.isHeld(directory.path))
        withExtendedLifetime(lock) {}
    }
}
