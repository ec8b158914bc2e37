import Switchyard

/// Answers with its arguments: a callable function for checking that calls get through.
func ping(_ arguments: [BSON], _ context: FunctionContext) async throws -> BSON {
    .array(arguments)
}
