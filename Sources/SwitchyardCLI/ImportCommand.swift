import Foundation
import Switchyard

/// `switchyard import DIR`: turns an App Services export into Switchyard's configuration files.
struct ImportCommand: Command {
    static let name = "import"
    static let summary = "Convert an App Services export into triggers.yaml, values and Swift function stubs"
    static let usage = """
        USAGE: switchyard import EXPORT_DIR [--output DIR] [--force]

        Reads an App Services export (appservices pull, realm-cli export, or the UI's download) and writes
        triggers.yaml, values.json, environments/*.json and one Swift stub per function under functions/.
        Prints each file written, the functions that still need a Swift implementation, and the secrets to
        set before the app loads. Refuses to overwrite an existing file unless --force is given (exit 2).

        OPTIONS:
          --output DIR          Where to write the files (default: --config, else the current directory)
          --config DIR          The app's directory
          --force               Replace files that exist
          -h, --help            Show this help
        """

    var export: String
    var output: String
    var force: Bool

    init(arguments: [String]) throws(UsageError) {
        let parsed = try Arguments(
            arguments, options: ["--output", "--config"], flags: ["--force"], usage: Self.usage)
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
        let written: [String]
        do {
            written = try imported.write(to: output, force: force)
        } catch {
            Output.error("switchyard import: \(error.description)")
            return force || !anyExists(imported) ? 1 : 2
        }
        for path in written { Output.print("wrote \(path)") }
        if !imported.functionsToPort.isEmpty {
            Output.print(
                "\(counted(imported.functionsToPort.count, "function")) to implement in Swift (stubs in \(output)/\(FunctionStub.directory)): "
                    + imported.functionsToPort.joined(separator: ", "))
        }
        for secret in imported.secretsNeeded {
            Output.print(
                "secret to set: \(secret) (set \(SecretStore.variableName(for: secret)) or add it to \(AppConfiguration.secretsFile))"
            )
        }
        return 0
    }

    /// Whether the refusal was for existing files (bad input) rather than a failed write.
    private func anyExists(_ imported: AppServicesImport) -> Bool {
        let files = (try? imported.files()) ?? []
        return files.contains { FileManager.default.fileExists(atPath: "\(output)/\($0.path)") }
    }
}
