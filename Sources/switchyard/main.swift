import Foundation
import Functions
import SwitchyardCLI

exit(await CommandLineTool.run(Array(CommandLine.arguments.dropFirst()), registry: functionRegistry))
