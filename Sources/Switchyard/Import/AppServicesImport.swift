/// What an App Services export turns into: the `triggers.yaml` model, values per environment, and the
/// functions that still need a Swift implementation.
package struct AppServicesImport: Sendable, Equatable {
    package var definition: AppDefinition
    package var values: ValueDefinitions
    package var environments: [AppEnvironment: ValueDefinitions]
    /// Every function a trigger calls or `functions/config.json` lists, sorted.
    package var functionsToPort: [String]
    /// Secrets the values refer to; they are not in an export and must be provided before loading.
    package var secretsNeeded: [String] {
        let all = ([values] + environments.values).flatMap(\.entries).compactMap { entry -> String? in
            if case .secret(let name) = entry.value { return name }
            return nil
        }
        return Array(Set(all)).sorted()
    }

    package init(
        definition: AppDefinition, values: ValueDefinitions = ValueDefinitions(),
        environments: [AppEnvironment: ValueDefinitions] = [:], functionsToPort: [String] = []
    ) {
        self.definition = definition
        self.values = values
        self.environments = environments
        self.functionsToPort = functionsToPort
    }

    /// The files to write, by path relative to the output directory, in a stable order.
    package func files() throws(UnwritableValue) -> [(path: String, contents: String)] {
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
        files += FunctionStub.files(for: functionsToPort)
        return files
    }
}
