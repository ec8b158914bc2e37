import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension AppServicesImport {
    /// Why writing an import stopped; nothing of the import was left behind when this is thrown.
    package struct WriteError: Error, Sendable, Equatable, CustomStringConvertible {
        package var description: String
    }

    /// Writes `files(package:)` under `directory`, creating folders as needed. Without `force`, refuses before
    /// writing anything when any of the files exists. Each file is written to a temporary file beside it
    /// and renamed into place only once all of them were written, so a failure leaves no half-written file.
    /// Returns the paths written.
    @discardableResult
    package func write(to directory: String, package: AppScaffold, force: Bool = false) throws(WriteError) -> [String] {
        let files: [(path: String, contents: String)]
        do {
            files = try self.files(package: package)
        } catch {
            throw WriteError(description: error.description)
        }
        let fileManager = FileManager.default
        let targets = files.map { (path: "\(directory)/\($0.path)", contents: $0.contents) }
        if !force {
            let existing = targets.map(\.path).filter { fileManager.fileExists(atPath: $0) }
            if !existing.isEmpty {
                throw WriteError(
                    description:
                        "refusing to overwrite existing files (use --force to replace them): \(existing.joined(separator: ", "))"
                )
            }
        }
        var staged: [(temporary: String, target: String)] = []
        func discardStaged() {
            for item in staged { try? fileManager.removeItem(atPath: item.temporary) }
        }
        for target in targets {
            let folder = (target.path as NSString).deletingLastPathComponent
            let temporary = "\(folder)/.\((target.path as NSString).lastPathComponent).\(UUID().uuidString).tmp"
            do {
                try fileManager.createDirectory(atPath: folder, withIntermediateDirectories: true)
                try Data(target.contents.utf8).write(to: URL(fileURLWithPath: temporary), options: .withoutOverwriting)
            } catch {
                discardStaged()
                try? fileManager.removeItem(atPath: temporary)
                throw WriteError(description: "\(target.path): cannot be written (\(error.localizedDescription))")
            }
            staged.append((temporary, target.path))
        }
        for (index, item) in staged.enumerated() where rename(item.temporary, item.target) != 0 {
            let reason = String(cString: strerror(errno))
            for rest in staged[index...] { try? fileManager.removeItem(atPath: rest.temporary) }
            throw WriteError(description: "\(item.target): cannot be written (\(reason))")
        }
        return targets.map(\.path)
    }
}
