/// The README and tests of the package `switchyard import` writes.
extension AppServicesImport {
    /// What the import brought over and left out, and how to go on: build, port the stubs, test, serve.
    func readme(for package: AppScaffold) -> String {
        let name = package.name
        var lines = [
            "# \(name)",
            "",
            "Imported from an App Services export by `switchyard import`: the app's triggers, functions, values,",
            "environments and auth settings run on [Switchyard](\(package.switchyardLink)); each function is a Swift",
            "stub beside its JavaScript until it is ported.",
            "",
            "## Next",
            "",
            "```sh",
            "swift build                         # the stubs build as they are",
            "swift test                          # the app loads with every function",
            "swift run \(name) serve --watch\(String(repeating: " ", count: max(1, 18 - name.count)))# serve it; a saved function rebuilds and restarts it",
            "```",
            "",
            "Port each function in `functions/`: its JavaScript is quoted in its comment and kept in `functions/js/`",
            "(which the functions target leaves out). Until a function is ported, running it fails with `NotPortedYet`",
            "naming it.",
            "",
        ]
        if !secretsNeeded.isEmpty {
            lines.append("Secrets the values name (set `SWITCHYARD_SECRET_<NAME>` or add them to `secrets.json`):")
            lines += secretsNeeded.map { "- `\($0)` (`\(SecretStore.variableName(for: $0))`)" }
            lines.append("")
        }
        lines += ["## Imported", ""]
        lines.append(
            "- `triggers.yaml`: \(counted(definition.triggers.count, "trigger")), function settings and `auth:`")
        lines.append(
            "- `functions/`: \(counted(functions.count, "stub")): "
                + functions.map { "`\($0.name)` (\($0.kind.rawValue))" }.joined(separator: ", "))
        if !values.entries.isEmpty || !environments.isEmpty {
            lines.append("- `values.json` and `environments/`: the values and each environment's overrides")
        }
        if !keptFiles.isEmpty {
            lines.append("- kept as the export holds them, in App Services' layout:")
            lines += keptFiles.keys.sorted().map { "  - `\($0)`" }
        }
        if !renamedFunctions.isEmpty {
            lines.append("- renamed, since a Swift function's name is an identifier:")
            lines += renamedFunctions.keys.sorted().map { "  - `\($0)` → `\(renamedFunctions[$0] ?? $0)`" }
        }
        if !leftOut.isEmpty {
            lines += ["", "## Left out", ""]
            lines += leftOut.map { "- `\($0.path)`: \($0.message)" }
        }
        lines.append("")
        return lines.joined(separator: "\n")
    }

    /// Tests that hold whether or not a function is ported: every function is registered and the app starts.
    func testFile(for package: AppScaffold) -> String {
        let names = functions.map { AppScaffold.quoted($0.name) }.joined(separator: ", ")
        let secrets =
            secretsNeeded.isEmpty
            ? "[:]"
            : "["
                + secretsNeeded.map { "\(AppScaffold.quoted(SecretStore.variableName(for: $0))): \"test placeholder\"" }
                .joined(separator: ", ") + "]"
        return #"""
            import Foundation
            import Switchyard
            import SwitchyardTesting
            import Testing
            import \#(package.name)Functions

            /// The package's root, which holds triggers.yaml and values.json.
            let appDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().path

            /// Stand-ins for the secrets the values name, so the tests need none of the real ones.
            let testSecrets: [String: String] = \#(secrets)

            /// The imported app in memory, as SwitchyardTesting runs it. Add a test per function as you port it.
            @Suite struct \#(package.name)Tests {
                @Test func everyImportedFunctionIsRegistered() {
                    #expect(functionRegistry.names == [\#(names)])
                }

                @Test func theImportedAppStartsWithItsTriggers() async throws {
                    try await TestApp.withApp(
                        configDirectory: appDirectory, registry: functionRegistry, variables: testSecrets
                    ) { app in
                        try await app.awaitIdle()
                    }
                }
            }

            """#
    }

    private func counted(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }
}
