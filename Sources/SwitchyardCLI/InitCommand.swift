import Foundation
import Switchyard

/// `switchyard init DIR`: scaffolds a new app package that depends on Switchyard.
struct InitCommand: Command {
    static let name = "init"
    static let summary = "Make a new app package (functions, triggers.yaml, values.json, tests) in DIR"
    static let usage = """
        USAGE: switchyard init DIR [--switchyard-path PATH | --switchyard-url URL [--from VERSION | --branch B]]

        Writes a new Swift package in DIR (which must be new or empty) that depends on Switchyard: Package.swift
        with a functions target registered by FunctionRegistryPlugin and an executable that is this command line
        with the app's functions,
        functions/ with a callable (greet) and a database trigger's function (countNewItem), triggers.yaml,
        values.json, a test target that fires a synthetic event through SwitchyardTesting, and a README.
        The names come from DIR: 'book-shop' makes BookShop, BookShopFunctions and BookShopTests. Then, in DIR:
        'swift run NAME serve --watch' serves the app and 'swift test' runs its tests.

        A DIR that is not empty is refused (exit 2); nothing is written.

        OPTIONS:
          --switchyard-path PATH  Depend on a local Switchyard checkout (default: the checkout this switchyard
                                  was built from, \(Self.builtFrom ?? "unknown"))
          --switchyard-url URL    Depend on Switchyard's Git repository instead
          --from VERSION          With --switchyard-url: the lowest version (default: \(CommandLineTool.version))
          --branch B              With --switchyard-url: follow a branch instead of versions
          -h, --help              Show this help
        """

    /// The checkout this binary was compiled from, while it still holds Switchyard's Package.swift.
    static var builtFrom: String? {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        return FileManager.default.fileExists(atPath: "\(root)/Package.swift") ? root : nil
    }

    var directory: String
    var dependency: AppScaffold.Dependency

    init(arguments: [String]) throws(UsageError) {
        let parsed = try Arguments(
            arguments, options: Self.dependencyOptions, flags: [], usage: Self.usage)
        guard let directory = parsed.positionals.first else {
            throw UsageError("missing DIR, the directory of the new app", usage: Self.usage)
        }
        guard parsed.positionals.count == 1 else {
            throw UsageError("unexpected argument '\(parsed.positionals[1])'", usage: Self.usage)
        }
        self.directory = directory
        dependency = try Self.dependency(parsed, usage: Self.usage)
    }

    static let dependencyOptions = ["--switchyard-path", "--switchyard-url", "--from", "--branch"]

    /// Where the new package gets Switchyard from: `--switchyard-url` with `--from` or `--branch`, else
    /// `--switchyard-path`, else the checkout this binary was built from.
    static func dependency(_ parsed: Arguments, usage: String) throws(UsageError) -> AppScaffold.Dependency {
        let path = parsed.value("--switchyard-path")
        let from = parsed.value("--from")
        let branch = parsed.value("--branch")
        if let url = parsed.value("--switchyard-url") {
            guard path == nil else {
                throw UsageError("give --switchyard-path or --switchyard-url, not both", usage: usage)
            }
            guard from == nil || branch == nil else {
                throw UsageError("give --from or --branch, not both", usage: usage)
            }
            return .url(url, branch.map { .branch($0) } ?? .from(from ?? CommandLineTool.version))
        }
        guard from == nil && branch == nil else {
            throw UsageError("--from and --branch go with --switchyard-url", usage: usage)
        }
        guard let checkout = path ?? Self.builtFrom else {
            throw UsageError(
                "the checkout this switchyard was built from is gone; give --switchyard-path or --switchyard-url",
                usage: usage)
        }
        let absolute = URL(fileURLWithPath: checkout).standardizedFileURL.path
        guard FileManager.default.fileExists(atPath: "\(absolute)/Package.swift") else {
            throw UsageError("\(checkout) holds no Package.swift; give a Switchyard checkout", usage: usage)
        }
        return .path(absolute)
    }

    func run() -> Int32 {
        let scaffold = AppScaffold(directory: directory, dependency: dependency)
        do {
            try scaffold.write(to: directory)
        } catch {
            Output.error("switchyard init: \(error.description)")
            return error.directoryNotEmpty ? 2 : 1
        }
        for (path, _) in scaffold.files { Output.print("wrote \(directory)/\(path)") }
        Output.print(
            """

            next, in \(directory):
              swift run \(scaffold.name) serve --watch   # serve the app, rebuilt as you save
              swift test\(String(repeating: " ", count: scaffold.name.count + 17))# run its tests
            """)
        return 0
    }
}
