import Foundation

/// The dashboard's files (`Dashboard/Assets`, shipped as the module's resources), read once into memory.
/// Only these names are ever served, so no request path reaches the file system.
struct DashboardAssets: Sendable {
    struct Asset: Sendable {
        var bytes: [UInt8]
        var contentType: String
    }

    static let files: [String: String] = [
        "index.html": "text/html; charset=utf-8",
        "app.js": "text/javascript; charset=utf-8",
        "style.css": "text/css; charset=utf-8",
        "favicon.svg": "image/svg+xml",
    ]

    /// By file name; empty when the resources were not found (`problem` says where they were looked for).
    let assets: [String: Asset]
    let problem: String?

    /// Reads the files from the first resource directory that has them.
    static func load() -> DashboardAssets {
        let candidates = resourceDirectories()
        for directory in candidates {
            var assets: [String: Asset] = [:]
            for (name, contentType) in files {
                guard let data = FileManager.default.contents(atPath: "\(directory)/\(name)") else { continue }
                assets[name] = Asset(bytes: Array(data), contentType: contentType)
            }
            if assets.count == files.count { return DashboardAssets(assets: assets, problem: nil) }
        }
        return DashboardAssets(
            assets: [:],
            problem:
                "the dashboard's files are missing: looked in \(candidates.joined(separator: ", ")) (keep the Switchyard_SwitchyardServer.resources directory beside the executable)"
        )
    }

    /// Where SwiftPM puts the module's resources: beside the executable (or test bundle), as `Bundle.module`
    /// looks for them — without its fatal error when they are missing.
    private static func resourceDirectories() -> [String] {
        let bundleName = "Switchyard_SwitchyardServer.resources"
        var directories = [Bundle.main.bundleURL.appendingPathComponent(bundleName).path]
        let executable = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath()
        directories.append(executable.deletingLastPathComponent().appendingPathComponent(bundleName).path)
        if let resources = Bundle.main.resourceURL {
            directories.append(resources.appendingPathComponent(bundleName).path)
        }
        var unique: [String] = []
        for directory in directories.map({ "\($0)/Assets" }) where !unique.contains(directory) {
            unique.append(directory)
        }
        return unique
    }
}
