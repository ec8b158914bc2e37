import Foundation
import PackagePlugin

/// Generates the `Functions` target's `functionRegistry` from its files, so adding a function is adding a file
/// (see FunctionRegistryGenerator for the rules).
@main
struct FunctionRegistryPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) async throws -> [Command] {
        guard let module = target.sourceModule else { return [] }
        let files = module.sourceFiles(withSuffix: "swift").map { $0.url }
        let output = context.pluginWorkDirectoryURL.appending(path: "FunctionRegistry.generated.swift")
        return [
            .buildCommand(
                displayName: "Generating the function registry of \(target.name)",
                executable: try context.tool(named: "FunctionRegistryGenerator").url,
                // The target's own directory (`directoryURL`) needs tools 6.1; paths below the package suffice.
                arguments: [output.path, context.package.directoryURL.path] + files.map(\.path),
                inputFiles: files,
                outputFiles: [output])
        ]
    }
}
