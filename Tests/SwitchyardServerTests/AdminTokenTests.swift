import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SwitchyardServer

@Suite struct AdminTokenTests {
    @Test func generatedTokensAre64HexDigitsAndDifferEachTime() throws {
        let first = AdminToken.generate()
        let second = AdminToken.generate()
        #expect(first.value.count == 64)
        #expect(first.value.allSatisfy { $0.isHexDigit && !$0.isUppercase })
        #expect(first.value != second.value)
        #expect(!"\(first)".contains(first.value))
    }

    @Test func matchesOnlyTheSameToken() throws {
        let token = AdminToken.generate()
        #expect(token.matches(token.value))
        #expect(!token.matches(nil))
        #expect(!token.matches(""))
        #expect(!token.matches(String(token.value.dropLast())))
        #expect(!token.matches(token.value + "0"))
        let lastFlipped = String(token.value.dropLast()) + (token.value.last == "0" ? "1" : "0")
        #expect(!token.matches(lastFlipped))
    }

    @Test func theFileIsReadableByTheOwnerOnlyEvenWhenItExistedWithWiderPermissions() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("token-\(UUID().uuidString)")
            .appendingPathComponent("nested").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = AdminToken.generate()
        let path = try first.write(toDirectory: directory)
        #expect(path == "\(directory)/admin.token")
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)

        let second = AdminToken.generate()
        try second.write(toDirectory: directory)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let contents = try String(contentsOfFile: path, encoding: .utf8)
        #expect(contents == second.value + "\n")
    }

    /// A command or script reading the file while a restarted server replaces it finds a whole token, old or new.
    @Test func aReaderWhileTheTokenIsReplacedFindsAWholeToken() async throws {
        let directory = try TemporaryDirectory(prefix: "token")
        let tokens = (0..<200).map { _ in AdminToken.generate() }
        try tokens[0].write(toDirectory: directory.path)
        let written = Set(tokens.map { $0.value + "\n" })
        let writing = Atomic(true)
        let reads = Atomic(0)
        let reader = Task {
            try await offPool {
                var unexpected: [String] = []
                while writing.load(ordering: .acquiring) {
                    let text = directory.read("admin.token") ?? "(missing)"
                    if !written.contains(text) { unexpected.append(text) }
                    reads.add(1, ordering: .releasing)
                }
                return unexpected
            }
        }
        // Replaced over and over for as long as it takes the reader to read it a few thousand times.
        var replaced = 0
        while replaced < tokens.count || reads.load(ordering: .acquiring) < 5_000 {
            try tokens[replaced % tokens.count].write(toDirectory: directory.path)
            replaced += 1
        }
        writing.store(false, ordering: .releasing)
        let unexpected = try await reader.value
        #expect(
            unexpected.isEmpty,
            "\(unexpected.count) of \(reads.load(ordering: .acquiring)) reads found no whole token: \(Set(unexpected))")
    }

    @Test func anUnwritableDirectoryIsAClearError() throws {
        let blocker = FileManager.default.temporaryDirectory.appendingPathComponent("token-file-\(UUID().uuidString)")
            .path
        #expect(FileManager.default.createFile(atPath: blocker, contents: Data("x".utf8)))
        defer { try? FileManager.default.removeItem(atPath: blocker) }
        #expect(throws: AdminTokenError.self) { try AdminToken.generate().write(toDirectory: "\(blocker)/inside") }
    }
}
