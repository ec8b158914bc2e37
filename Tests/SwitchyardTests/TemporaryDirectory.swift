import Foundation

/// A fresh directory per test (tests run in parallel), removed when the value is deinitialised.
final class TemporaryDirectory {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("switchyard-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    func write(_ relative: String, _ contents: String) throws {
        let url = URL(fileURLWithPath: path).appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(contents.utf8).write(to: url)
    }

    func read(_ relative: String) -> String? {
        FileManager.default.contents(atPath: "\(path)/\(relative)").map { String(decoding: $0, as: UTF8.self) }
    }
}
