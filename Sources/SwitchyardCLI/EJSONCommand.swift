import BSON
import Foundation

/// `switchyard ejson [--canonical|--relaxed] [FILE]`: reads a document or an array of documents as Extended JSON
/// and prints each document on its own line in the chosen format.
struct EJSONCommand: Command {
    static let name = "ejson"
    static let summary = "Read MongoDB Extended JSON; print one document per line (canonical or relaxed)"
    static let usage = """
        USAGE: switchyard ejson [--canonical | --relaxed] [FILE]

        Reads one document, or a JSON array of documents, from FILE (or standard input when FILE is
        missing or '-'), and prints each document as compact Extended JSON v2 on its own line.

        OPTIONS:
          --canonical   Keep every BSON type: {"$numberInt":"1"} (the default)
          --relaxed     Plain JSON numbers and ISO-8601 dates where no type is lost
          -h, --help    Show this help

        Bad input is reported as FILE:LINE:COLUMN: message (columns count characters), exit status 2.
        """

    var mode: ExtendedJSON.Mode = .canonical
    var path: String?

    init(arguments: [String]) throws(UsageError) {
        var modeFlag: String?
        var optionsEnded = false
        for argument in arguments {
            if !optionsEnded && argument.hasPrefix("-") && argument != "-" {
                switch argument {
                case "--canonical", "--relaxed":
                    if let modeFlag, modeFlag != argument {
                        throw UsageError("\(modeFlag) and \(argument) exclude each other", usage: Self.usage)
                    }
                    modeFlag = argument
                    mode = argument == "--relaxed" ? .relaxed : .canonical
                case "--":
                    optionsEnded = true
                default:
                    throw UsageError("unknown option '\(argument)'", usage: Self.usage)
                }
            } else {
                guard path == nil else { throw UsageError("more than one FILE given", usage: Self.usage) }
                path = argument
            }
        }
    }

    func run() -> Int32 {
        let source = path == nil || path == "-" ? "<stdin>" : path!
        let input: Data
        do {
            if source == "<stdin>" {
                input = try FileHandle.standardInput.readToEnd() ?? Data()
            } else {
                input = try Data(contentsOf: URL(fileURLWithPath: source))
            }
        } catch {
            Output.error("switchyard ejson: cannot read \(source): \(error.localizedDescription)")
            return 1
        }
        let documents: [BSONDocument]
        do {
            documents = try ExtendedJSON.parseDocuments(input)
        } catch {
            Output.error("\(source):\(error.line):\(error.column): \(error.message)")
            return 2
        }
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 16)
        for document in documents {
            document.appendExtendedJSON(to: &buffer, mode: mode)
            buffer.append(UInt8(ascii: "\n"))
            if buffer.count >= 1 << 16 {
                Output.write(buffer, to: .standardOutput)
                buffer.removeAll(keepingCapacity: true)
            }
        }
        Output.write(buffer, to: .standardOutput)
        return 0
    }
}
