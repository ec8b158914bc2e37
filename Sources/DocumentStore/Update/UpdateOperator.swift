/// The update operators Switchyard implements, by their names in an update document.
enum UpdateOperator: String, Sendable, CaseIterable {
    case set = "$set"
    case setOnInsert = "$setOnInsert"
    case unset = "$unset"
    case inc = "$inc"
    case mul = "$mul"
    case min = "$min"
    case max = "$max"
    case rename = "$rename"
    case currentDate = "$currentDate"
    case push = "$push"
    case addToSet = "$addToSet"
    case pull = "$pull"
    case pullAll = "$pullAll"
    case pop = "$pop"
}
