import Foundation

// Usage: FunctionRegistryGenerator <output file> <package directory> <swift files…>
// Run by the FunctionRegistryPlugin build tool; writes the output only when it changes, so unchanged
// function sets do not recompile the target.
let arguments = CommandLine.arguments.dropFirst()
guard arguments.count >= 2 else {
    FileHandle.standardError.write(
        Data("usage: FunctionRegistryGenerator <output file> <package directory> <swift files…>\n".utf8))
    exit(2)
}
let output = arguments[arguments.startIndex]
let package = arguments[arguments.startIndex + 1]
do {
    let source = try FunctionRegistrySource(package: package, files: Array(arguments.dropFirst(2)))
    let data = Data(source.text.utf8)
    if FileManager.default.contents(atPath: output) != data {
        try data.write(to: URL(fileURLWithPath: output))
    }
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(1)
}
