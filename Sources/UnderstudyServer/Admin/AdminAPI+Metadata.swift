import Foundation
import Understudy

extension AdminAPI {
    /// `POST /__admin/mappings/find-by-metadata`: `{"mappings": [...], "meta": {...}}`, those
    /// whose `metadata` the pattern matches.
    func findMappings(byMetadata request: AdminRequest) throws -> AdminResponse {
        let pattern = try MetadataPattern(request.body)
        let uses = registry.useCounts
        let found = registry.stubs.map { mappingJSON(of: $0, uses: uses) }.filter { pattern.matches(Self.metadata(of: $0)) }
        return .json(200, ["mappings": .array(found), "meta": ["total": .number(Double(found.count))]] as JSONValue)
    }

    /// `POST /__admin/mappings/remove-by-metadata`: removes the mappings whose `metadata` the
    /// pattern matches.
    func removeMappings(byMetadata request: AdminRequest) throws -> AdminResponse {
        let pattern = try MetadataPattern(request.body)
        let uses = registry.useCounts
        let names = Set(registry.stubs.filter { pattern.matches(Self.metadata(of: mappingJSON(of: $0, uses: uses))) }.map(\.name))
        registry.replace(removing: { names.contains($0.name) }, adding: [])
        return .json(200, [:] as JSONValue)
    }

    private static func metadata(of mapping: JSONValue) -> JSONValue {
        if case .object(let members) = mapping, let metadata = members["metadata"] { return metadata }
        return .object([:])
    }
}
