import Foundation
import UnderstudyImages

extension HazardCatalogue {
    /// Writes every hazard's body and expected image as files, for suites that read fixtures
    /// rather than a server (`understudy hazards --write DIR`): `<name>.<ext>` (the body of
    /// the hazard's first answer, as sent on the wire: gzipped for `gzip-encoded`, whole for
    /// `length-longer-than-body`), `<name>.expected.png`, and `hazards.json`, the catalogue.
    ///
    /// ```swift
    /// let written = try HazardCatalogue.write(to: URL(fileURLWithPath: "Fixtures/hazards"))
    /// ```
    /// - Parameter directory: Where to write; created when missing.
    /// - Returns: The files written, in catalogue order.
    /// - Throws: `ImageError` where this build cannot encode a hazard's format (SPEC 18),
    ///   or the file system's error.
    @discardableResult
    public static func write(to directory: URL) throws -> [URL] {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var written: [URL] = []
        for hazard in Hazard.allCases {
            let body = try hazard.firstBody()
            let file = directory.appendingPathComponent("\(hazard.name).\(Self.fileExtension(of: body))")
            try body.write(to: file)
            written.append(file)
            if let expected = hazard.expected {
                let file = directory.appendingPathComponent("\(hazard.name).expected.png")
                try expected.pngData().write(to: file)
                written.append(file)
            }
        }
        let catalogue = directory.appendingPathComponent("hazards.json")
        try HazardCatalogue().jsonData.write(to: catalogue)
        return written + [catalogue]
    }

    /// The image format's extension; `gz` for gzip, `html` for a page, else `bin`.
    private static func fileExtension(of body: Data) -> String {
        if let kind = ImageKind.detect(body) { return kind.fileExtension }
        if body.starts(with: [0x1F, 0x8B]) { return "gz" }
        if body.starts(with: Array("<!doctype html".utf8)) { return "html" }
        return body.starts(with: [0x89, 0x50, 0x4E, 0x47]) ? "png" : "bin"
    }
}

extension Hazard {
    /// The body of the hazard's first answer (for a stateful one, to a request accepting
    /// anything), as sent on the wire.
    func firstBody() throws -> Data {
        let response = isStateful
            ? try StubResponse.statefulHazard(self, number: 1, request: StubRequest(url: URL(string: "http://localhost\(path())")!))
            : try StubResponse.fixedHazard(self)
        if case .data(let data, _) = response.body { return data }
        return Data()
    }
}
