import UnderstudyImages
internal import Yams

extension StubFileParser {
    /// `hazard: orientation-6`: a hazard of SPEC 20's catalogue, by name. An unknown name is an
    /// error listing the known ones; a hazard this build cannot encode (SPEC 18) is an error at
    /// load time, not a 500 at the first request.
    mutating func parseHazard(_ node: Node, path: String) -> StubResponse? {
        guard let name = string(node, path, expected: "a hazard name") else { return nil }
        guard let hazard = Hazard(named: name) else {
            report(node, path, "unknown hazard '\(name)'; expected one of \(Hazard.allNames.joined(separator: ", "))")
            return nil
        }
        if !hazard.isStateful {
            do {
                _ = try hazard.imageData()
            } catch {
                report(node, path, "hazard '\(name)' cannot be served by this build: \(error)")
                return nil
            }
        }
        return .hazard(hazard)
    }
}
