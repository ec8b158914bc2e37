/// Which environment's values apply: chosen by `--environment`, else `SWITCHYARD_ENV`, else development.
/// The environment's overrides live in `environments/<name>.json`, as in App Services.
public enum AppEnvironment: String, Sendable, Hashable, CaseIterable {
    case development
    case testing
    case qa
    case production

    package static let variableName = "SWITCHYARD_ENV"

    /// The environment the flag names, else the one `SWITCHYARD_ENV` names, else development.
    package static func select(flag: String?, variables: [String: String]) throws(UnknownName) -> AppEnvironment {
        let (name, source) =
            if let flag { (flag, "--environment") } else if let variable = variables[variableName], !variable.isEmpty {
                (variable, variableName)
            } else { ("development", "default") }
        guard let environment = AppEnvironment(rawValue: name.lowercased()) else {
            throw UnknownName(name: name, source: source)
        }
        return environment
    }

    package struct UnknownName: Error, Sendable, Equatable, CustomStringConvertible {
        package var name: String
        /// `--environment` or `SWITCHYARD_ENV`.
        package var source: String

        package init(name: String, source: String) {
            self.name = name
            self.source = source
        }

        package var description: String {
            let names = AppEnvironment.allCases.map(\.rawValue)
            return
                "\(source): unknown environment '\(name)'\(ClosestMatch.hint(for: name, among: names)) (expected \(names.joined(separator: ", ")))"
        }
    }
}
