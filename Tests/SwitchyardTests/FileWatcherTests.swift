import Foundation
import Switchyard
import Synchronization
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct FileWatcherTests {
    /// Collects reports; `next()` waits for one.
    final class Reports: Sendable {
        let received = Mutex<[Set<String>]>([])

        func add(_ changed: Set<String>) { received.withLock { $0.append(changed) } }

        func next(after count: Int) async throws -> Set<String> {
            while true {
                if let report = received.withLock({ $0.count > count ? $0[count] : nil }) { return report }
                try await Task.sleep(for: .milliseconds(10))
            }
        }
    }

    @Test func aSaveIsOneReportAndNewSubdirectoriesAreFollowed() async throws {
        let directory = try TemporaryDirectory()
        try directory.write("functions/ping.swift", "// one")
        let reports = Reports()
        let watcher = try FileWatcher(
            [.init(path: "\(directory.path)/functions", recursive: true)], debounce: .milliseconds(50)
        ) { reports.add($0) }
        defer { watcher.stop() }

        // An editor's save: a temporary file renamed over the original, plus a swap file.
        try directory.write("functions/.ping.swift.tmp", "// two")
        try directory.write("functions/.ping.swift.swp", "swap")
        try FileManager.default.removeItem(atPath: "\(directory.path)/functions/ping.swift")
        try FileManager.default.moveItem(
            atPath: "\(directory.path)/functions/.ping.swift.tmp", toPath: "\(directory.path)/functions/ping.swift")
        #expect(try await reports.next(after: 0) == ["\(directory.path)/functions/ping.swift"])

        try FileManager.default.createDirectory(
            atPath: "\(directory.path)/functions/books", withIntermediateDirectories: true)
        try await Task.sleep(for: .milliseconds(100))
        try directory.write("functions/books/add.swift", "// new")
        #expect(try await reports.next(after: 1) == ["\(directory.path)/functions/books/add.swift"])
    }

    @Test func aDirectoryThatDoesNotExistIsAClearError() throws {
        #expect(throws: FileWatcherError.self) {
            try FileWatcher([.init(path: "/no/such/directory", recursive: false)]) { _ in }
        }
    }
}
