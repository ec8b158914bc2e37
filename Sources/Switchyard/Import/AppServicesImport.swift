/// What an App Services export turns into: the `triggers.yaml` model, values per environment, the functions
/// that still need a Swift implementation, the files kept verbatim and what was left out.
package struct AppServicesImport: Sendable, Equatable {
    package var definition: AppDefinition
    package var values: ValueDefinitions
    package var environments: [AppEnvironment: ValueDefinitions]
    /// Every function a trigger, provider or endpoint calls, `functions/config.json` lists or `functions/`
    /// holds JavaScript for, sorted by name.
    package var functions: [ImportedFunction]
    /// `data_sources/` and the endpoint folders' other files by path, written unchanged in App Services' layout.
    package var keptFiles: [String: String]
    /// What of the export Switchyard does not run, one note each.
    package var leftOut: [ImportNote]
    /// Functions whose export name is no Swift identifier, and the name they are registered under instead.
    package var renamedFunctions: [String: String]

    package init(
        definition: AppDefinition, values: ValueDefinitions = ValueDefinitions(),
        environments: [AppEnvironment: ValueDefinitions] = [:], functions: [ImportedFunction] = [],
        keptFiles: [String: String] = [:], leftOut: [ImportNote] = [], renamedFunctions: [String: String] = [:]
    ) {
        self.definition = definition
        self.values = values
        self.environments = environments
        self.functions = functions
        self.keptFiles = keptFiles
        self.leftOut = leftOut
        self.renamedFunctions = renamedFunctions
    }

    package var functionsToPort: [String] { functions.map(\.name) }

    /// Secrets the values and the endpoints' validation refer to; they are not in an export and must be provided
    /// before loading.
    package var secretsNeeded: [String] {
        let all =
            ([values] + environments.values).flatMap(\.entries).compactMap { entry -> String? in
                if case .secret(let name) = entry.value { return name }
                return nil
            } + definition.endpoints.compactMap(\.validation.secretName)
        return Array(Set(all)).sorted()
    }

    /// The files of the app's configuration, by path relative to the output directory, in a stable order.
    package func configurationFiles() throws(UnwritableValue) -> [(path: String, contents: String)] {
        var files: [(path: String, contents: String)] = [(AppConfiguration.triggersFile, try definition.yamlText())]
        if !values.entries.isEmpty { files.append((AppConfiguration.valuesFile, try values.jsonText())) }
        for environment in AppEnvironment.allCases {
            guard let overrides = environments[environment], !overrides.entries.isEmpty else { continue }
            files.append(
                (
                    "\(AppConfiguration.environmentsDirectory)/\(environment.rawValue).json",
                    try JSONWriter.text(["values": .document(overrides.document)], indent: 0) + "\n"
                ))
        }
        files += keptFiles.keys.sorted().map { ($0, keptFiles[$0] ?? "") }
        return files
    }

    /// Every file of the package `switchyard import` writes: the `init` scaffold's package (named by
    /// `package`) with the imported configuration, a stub per function beside its JavaScript, tests that
    /// the app loads, and a README saying what was imported, what was left out and what to do next.
    package func files(package: AppScaffold) throws(UnwritableValue) -> [(path: String, contents: String)] {
        var scaffold = package
        if functions.contains(where: { $0.javaScript != nil }) {
            scaffold.excludedFunctionFiles = [FunctionStub.javaScriptFolder]
        }
        var files: [(path: String, contents: String)] = [
            ("Package.swift", scaffold.packageManifest),
            (".gitignore", AppScaffold.gitignore),
            ("README.md", readme(for: scaffold)),
        ]
        files += try configurationFiles()
        files += FunctionStub.files(for: functions)
        files.append(("Sources/\(scaffold.name)/main.swift", scaffold.mainFile))
        files.append(("Tests/\(scaffold.name)Tests/\(scaffold.name)Tests.swift", testFile(for: scaffold)))
        return files
    }
}
