/// Which environment's values apply: chosen by `--environment`, else `SWITCHYARD_ENV`, else development.
/// The environment's overrides live in `environments/<name>.json`, as in App Services.
public enum AppEnvironment: String, Sendable, Hashable, CaseIterable {
    case development
    case testing
    case qa
    case production

    public static let variableName = "SWITCHYARD_ENV"

    /// The environment the flag names, else the one `SWITCHYARD_ENV` names, else development.
    public static func select(flag: String?, variables: [String: String]) throws(UnknownName) -> AppEnvironment {
        let (name, source) =
            if let flag { (flag, "--environment") } else if let variable = variables[variableName], !variable.isEmpty {
                (variable, variableName)
            } else { ("development", "default") }
        guard let environment = AppEnvironment(rawValue: name.lowercased()) else {
            throw UnknownName(name: name, source: source)
        }
        return environment
    }

    public struct UnknownName: Error, Sendable, Equatable, CustomStringConvertible {
        public var name: String
        /// `--environment` or `SWITCHYARD_ENV`.
        public var source: String

        public init(name: String, source: String) {
            self.name = name
            self.source = source
        }

        public var description: String {
            let names = AppEnvironment.allCases.map(\.rawValue)
            return
                "\(source): unknown environment '\(name)'\(ClosestMatch.hint(for: name, among: names)) (expected \(names.joined(separator: ", ")))"
        }
    }
}
