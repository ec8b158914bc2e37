import Foundation
import TestSupport
import Testing

/// The children the tests start themselves hold none of the test process's descriptors: a PostgreSQL server that
/// kept another test's output pipe open left that test reading forever and the whole suite unfinished.
@Suite struct SpawnedChildDescriptorTests {
    @Test func aPostgreSQLServerStartedWhileAPipeIsOpenDoesNotHoldIt() async throws {
        let pipe = Pipe()
        let server = try await offPool { try PostgreSQLServer.own() }
        defer { server.stop() }
        try pipe.fileHandleForWriting.close()
        #expect(endsAtOnce(pipe.fileHandleForReading), "the server holds the pipe's write end")
    }

    @Test func aServerRestartedWhileAPipeIsOpenDoesNotHoldIt() async throws {
        let server = try await offPool { try PostgreSQLServer.own() }
        defer { server.stop() }
        try await offPool { try server.stopGracefully() }
        let pipe = Pipe()
        try await offPool { try server.start() }
        try pipe.fileHandleForWriting.close()
        #expect(endsAtOnce(pipe.fileHandleForReading), "the restarted server holds the pipe's write end")
    }

    /// True when the pipe's read end sees its end within five seconds: no other process holds the write end (the
    /// wait only bounds a failing test; a passing one returns at once).
    private func endsAtOnce(_ handle: FileHandle) -> Bool {
        var descriptor = pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, 5_000) == 1 else { return false }
        var byte: UInt8 = 0
        return read(handle.fileDescriptor, &byte, 1) == 0
    }
}
