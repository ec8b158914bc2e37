import Foundation

/// A fresh directory per test (tests run in parallel), removed when the value is deinitialised.
public final class TemporaryDirectory: Sendable {
    public let path: String

    public init(prefix: String = "switchyard") throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Writes `contents` at `relative`, creating folders; returns the file's full path.
    @discardableResult
    public func write(_ relative: String, _ contents: String) throws -> String {
        let url = URL(fileURLWithPath: path).appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(contents.utf8).write(to: url)
        return url.path
    }

    public func read(_ relative: String) -> String? {
        FileManager.default.contents(atPath: "\(path)/\(relative)").map { String(decoding: $0, as: UTF8.self) }
    }
}
