import Foundation

/// A new app package that depends on Switchyard, as `switchyard init DIR` writes it: `Package.swift` with a
/// functions target registered by `FunctionRegistryPlugin`, an executable that runs the app, `functions/` with
/// one callable and one database trigger function, `triggers.yaml`, `values.json`, a test target that fires a
/// synthetic event through `SwitchyardTesting`, a README and a `.gitignore`.
///
/// The names derive from the directory: `book-shop` makes the package and executable `BookShop`, the functions
/// target `BookShopFunctions` (target names are unique across a package graph, and Switchyard's own example app
/// already has a `Functions` target) and the tests `BookShopTests`.
package struct AppScaffold: Sendable, Equatable {
    /// Where the new package gets Switchyard from.
    package enum Dependency: Sendable, Equatable {
        /// A local checkout (made absolute when written).
        case path(String)
        case url(String, Requirement)

        package enum Requirement: Sendable, Equatable {
            case from(String)
            case branch(String)
        }

        /// How `.product(name:package:)` names the package: SwiftPM's identity, the last path component
        /// (without `.git`), lowercased.
        package var packageIdentity: String {
            let location: String
            switch self {
            case .path(let path): location = path
            case .url(let url, _): location = url
            }
            var last = location.split(separator: "/").last.map(String.init) ?? location
            if last.hasSuffix(".git") { last.removeLast(4) }
            return last.lowercased()
        }
    }

    /// Why the scaffold could not be written.
    package struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        package var description: String
        /// The directory was not empty: bad input, nothing was written.
        package var directoryNotEmpty: Bool
    }

    /// The package, its executable, and the prefix of its other targets.
    package var name: String
    package var dependency: Dependency
    /// Paths inside `functions/` the functions target leaves out (an import keeps JavaScript there).
    package var excludedFunctionFiles: [String] = []

    static let gitignore = ".build/\n.switchyard/\nsecrets.json\n"

    /// Names the app after `directory`'s last component.
    package init(directory: String, dependency: Dependency) {
        name = Self.packageName(for: URL(fileURLWithPath: directory).lastPathComponent)
        self.dependency = dependency
    }

    /// `book-shop` → `BookShop`, `2024 app` → `App2024App`; a name one of Switchyard's own targets uses gets
    /// `App` appended.
    static func packageName(for directoryName: String) -> String {
        let words = directoryName.split { !($0.isASCII && ($0.isLetter || $0.isNumber)) }
        var name = words.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        if name.isEmpty { return "App" }
        if name.first?.isNumber == true { name = "App" + name }
        let taken = [name, name + "Functions", name + "Tests"].contains {
            reservedTargetNames.contains($0.lowercased())
        }
        return taken ? name + "App" : name
    }

    /// Switchyard's own target names (lowercased), which an app's targets must not repeat.
    static let reservedTargetNames: Set<String> = [
        "bson", "documentstore", "messaging", "switchyard", "switchyardserver", "switchyardtesting", "functions",
        "functionregistryplugin", "functionregistrygenerator", "switchyard-bench", "testsupport", "store-crash-writer",
        "trigger-crash-runner", "cyaml", "ccurl", "copenssl", "csqlite", "cmicrohttpd", "bsontests",
        "documentstoretests", "messagingtests", "switchyardtests", "switchyardservertests", "functionstests",
        "exampleapptests", "switchyardtestingtests", "functionregistrygeneratortests", "switchyardclitests",
        "systemlibrarytests",
    ]

    /// Every file, by its path inside the package.
    package var files: [(path: String, contents: String)] {
        [
            ("Package.swift", packageManifest),
            (".gitignore", Self.gitignore),
            ("README.md", readme),
            ("triggers.yaml", Self.triggers),
            ("values.json", Self.values),
            ("functions/greet.swift", Self.greetFunction),
            ("functions/countNewItem.swift", Self.countFunction),
            ("Sources/\(name)/main.swift", mainFile),
            ("Tests/\(name)Tests/\(name)Tests.swift", testFile),
        ]
    }

    /// Writes every file into `directory`, creating it when missing.
    /// - Throws: when `directory` exists and is not empty (`directoryNotEmpty`), or a file cannot be written.
    package func write(to directory: String) throws(Failure) {
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        if manager.fileExists(atPath: directory, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw Failure(
                    description: "\(directory) is a file; give a new or empty directory", directoryNotEmpty: true)
            }
            let entries = (try? manager.contentsOfDirectory(atPath: directory)) ?? []
            guard entries.isEmpty else {
                throw Failure(
                    description:
                        "\(directory) is not empty (it holds \(entries.sorted().prefix(3).joined(separator: ", "))\(entries.count > 3 ? ", …" : "")); init makes a new app in a new or empty directory",
                    directoryNotEmpty: true)
            }
        }
        for (path, contents) in files {
            let url = URL(fileURLWithPath: directory).appendingPathComponent(path)
            do {
                try manager.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(contents.utf8).write(to: url)
            } catch {
                throw Failure(
                    description: "\(url.path): cannot be written (\(error.localizedDescription))",
                    directoryNotEmpty: false)
            }
        }
    }
}
