import Foundation
import Switchyard

/// `switchyard import EXPORT --output DIR`: turns an App Services export into an app package that builds.
struct ImportCommand: Command {
    static let name = "import"
    static let summary = "Turn an App Services export into an app package: configuration, Swift stubs, tests"
    static let usage = """
        USAGE: switchyard import EXPORT_DIR [--output DIR] [--force]
                                 [--switchyard-path PATH | --switchyard-url URL [--from VERSION | --branch B]]

        Reads an App Services export (appservices pull, realm-cli export, or the UI's download) and writes an
        app package, as 'switchyard init' does: Package.swift, triggers.yaml (triggers, function settings, app
        id, auth providers with the email/password settings, custom user data), values.json,
        environments/*.json, one Swift stub per function in functions/ with a signature fitting its use and its
        JavaScript kept beside it in functions/js/, tests, a README, and data_sources/ and http_endpoints/ as
        the export holds them. Prints each file written, each part of the export left out and why, the secrets
        to set and what to do next. Refuses to overwrite an existing file unless --force is given (exit 2).

        OPTIONS:
          --output DIR            Where to write the package (default: --config, else the current directory);
                                  the package is named after it
          --config DIR            The app's directory
          --force                 Replace files that exist
          --switchyard-path PATH  Depend on a local Switchyard checkout (default: the checkout this switchyard
                                  was built from)
          --switchyard-url URL    Depend on Switchyard's Git repository instead
          --from VERSION          With --switchyard-url: the lowest version (default: \(CommandLineTool.version))
          --branch B              With --switchyard-url: follow a branch instead of versions
          -h, --help              Show this help
        """

    var export: String
    var output: String
    var force: Bool
    var dependency: AppScaffold.Dependency

    init(arguments: [String]) throws(UsageError) {
        let parsed = try Arguments(
            arguments, options: ["--output", "--config"] + InitCommand.dependencyOptions, flags: ["--force"],
            usage: Self.usage)
        guard let export = parsed.positionals.first else {
            throw UsageError("missing EXPORT_DIR, the App Services export to read", usage: Self.usage)
        }
        guard parsed.positionals.count == 1 else {
            throw UsageError("unexpected argument '\(parsed.positionals[1])'", usage: Self.usage)
        }
        guard parsed.value("--output") == nil || parsed.value("--config") == nil else {
            throw UsageError("--output and --config both name the output directory; give one", usage: Self.usage)
        }
        self.export = export
        output = parsed.value("--output") ?? parsed.value("--config") ?? "."
        force = parsed.has("--force")
        dependency = try InitCommand.dependency(parsed, usage: Self.usage)
    }

    func run() -> Int32 {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: export, isDirectory: &isDirectory), isDirectory.boolValue else {
            Output.error("switchyard import: \(export): no such directory")
            return 2
        }
        let imported: AppServicesImport
        do {
            imported = try AppServicesImporter.read(exportDirectory: export)
        } catch {
            Output.error(error.description)
            return 2
        }
        let package = AppScaffold(
            directory: URL(fileURLWithPath: output).standardizedFileURL.path, dependency: dependency)
        let written: [String]
        do {
            written = try imported.write(to: output, package: package, force: force)
        } catch {
            Output.error("switchyard import: \(error.description)")
            return force || !anyExists(imported, package) ? 1 : 2
        }
        for path in written { Output.print("wrote \(path)") }
        for path in imported.keptFiles.keys.sorted() {
            Output.print("imported \(path) as the export holds it (App Services' layout, read from the app directory)")
        }
        for endpoint in imported.definition.endpoints {
            Output.print(
                "imported HTTPS endpoint \(endpoint.method.rawValue) \(endpoint.route) (function \(endpoint.function)) as endpoints: in triggers.yaml, served at /app/{app id}/endpoint\(endpoint.route)"
            )
        }
        for (name, identifier) in imported.renamedFunctions.sorted(by: { $0.key < $1.key }) {
            Output.print("renamed function '\(name)' to '\(identifier)': a Swift function's name is an identifier")
        }
        for note in imported.leftOut { Output.print("\(export)/\(note.path): \(note.message)") }
        for secret in imported.secretsNeeded {
            Output.print(
                "secret to set: \(secret) (set \(SecretStore.variableName(for: secret)) or add it to \(output)/\(AppConfiguration.secretsFile))"
            )
        }
        let functions = imported.functionsToPort
        var next = ["", "next:", "  cd \(output)", "  swift build                  # the stubs build as they are"]
        if !functions.isEmpty {
            next.append(
                "  port \(counted(functions.count, "stub")) in functions/ from functions/js/: "
                    + functions.joined(separator: ", "))
        }
        if !imported.secretsNeeded.isEmpty { next.append("  set the secrets above") }
        next += [
            "  swift test                   # the app loads with every function",
            "  swift run \(package.name) serve --watch",
        ]
        Output.print(next.joined(separator: "\n"))
        return 0
    }

    /// Whether the refusal was for existing files (bad input) rather than a failed write.
    private func anyExists(_ imported: AppServicesImport, _ package: AppScaffold) -> Bool {
        let files = (try? imported.files(package: package)) ?? []
        return files.contains { FileManager.default.fileExists(atPath: "\(output)/\($0.path)") }
    }
}
