import DocumentStore
import Foundation

extension DataAccessRules {
    /// Where App Services keeps a data source's rules and schemas, beside `triggers.yaml`.
    static let directory = "data_sources"

    /// Reads `data_sources/<service>/default_rule.json` and `<database>/<collection>/{rules.json,schema.json}` of
    /// every service under `appDirectory`, reporting problems into `errors`. `read` reads one file by its path
    /// relative to the app directory (nil when it is missing or unreadable, reported by `read`).
    static func read(
        appDirectory: String, errors: inout [ConfigurationError], read: (String) -> (label: String, text: String)?
    ) -> DataAccessRules {
        var rules = DataAccessRules()
        let root = appDirectory.isEmpty ? directory : "\(appDirectory)/\(directory)"
        for service in subdirectories(of: root) {
            let servicePath = "\(directory)/\(service)"
            if let (label, text) = read("\(servicePath)/default_rule.json") {
                var reader = ConfigurationReader(file: label)
                if let node = JSONText.parse(text, reader: &reader),
                    let rule = RuleReader(scalars: .json).readDefaultRule(node, reader: &reader)
                {
                    if rules.defaultRule != nil {
                        reader.error("a default rule is given by another data source too; keep one", at: node)
                    }
                    rules.defaultRule = rule
                }
                errors += reader.errors
            }
            for database in subdirectories(of: "\(root)/\(service)") {
                for collection in subdirectories(of: "\(root)/\(service)/\(database)") {
                    let namespace = Namespace(database: database, collection: collection)
                    let path = "\(servicePath)/\(database)/\(collection)"
                    if let (label, text) = read("\(path)/rules.json") {
                        var reader = ConfigurationReader(file: label)
                        if let node = JSONText.parse(text, reader: &reader),
                            let (named, rule) = RuleReader(scalars: .json).readRuleFile(
                                node, expected: namespace, reader: &reader)
                        {
                            rules.collections[named] = rule
                        }
                        errors += reader.errors
                    }
                    if let (label, text) = read("\(path)/schema.json") {
                        var reader = ConfigurationReader(file: label)
                        if let node = JSONText.parse(text, reader: &reader),
                            let schema = DocumentSchema.read(node, scalars: .json, reader: &reader)
                        {
                            rules.schemas[namespace] = schema
                        }
                        errors += reader.errors
                    }
                }
            }
        }
        return rules
    }

    /// Adds `other`'s rules (from `triggers.yaml`); a collection given rules in both is an error at `file`.
    mutating func merge(_ other: DataAccessRules, file: String, errors: inout [ConfigurationError]) {
        for (namespace, rule) in other.collections {
            if collections[namespace] != nil {
                errors.append(
                    ConfigurationError(
                        file: file, location: nil,
                        message:
                            "rules for \(namespace) are given both here and in \(Self.directory)/; keep one"))
            }
            collections[namespace] = rule
        }
        for (namespace, schema) in other.schemas {
            if schemas[namespace] != nil {
                errors.append(
                    ConfigurationError(
                        file: file, location: nil,
                        message: "a schema for \(namespace) is given both here and in \(Self.directory)/; keep one"))
            }
            schemas[namespace] = schema
        }
        if let rule = other.defaultRule {
            if defaultRule != nil {
                errors.append(
                    ConfigurationError(
                        file: file, location: nil,
                        message: "a default rule is given both here and in \(Self.directory)/; keep one"))
            }
            defaultRule = rule
        }
    }

    private static func subdirectories(of path: String) -> [String] {
        let manager = FileManager.default
        guard let names = try? manager.contentsOfDirectory(atPath: path) else { return [] }
        return names.filter { name in
            var isDirectory: ObjCBool = false
            return !name.hasPrefix(".") && manager.fileExists(atPath: "\(path)/\(name)", isDirectory: &isDirectory)
                && isDirectory.boolValue
        }.sorted()
    }
}
