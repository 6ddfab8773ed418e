import Foundation

extension StubRegistry {
    /// `interactions` with the bodies the server rendered filled in where the journal kept none:
    /// canned answers' from the registry's renderings (``fillingCannedBodies(_:)``), images and
    /// transcoded bodies rendered again (``bodyRenderedAgain(for:)``), whose codec work the
    /// transcoder's cache mostly spares. Entries share the bytes: an answer sent many times is
    /// one `Data` in memory however many entries point at it. What the HAR export and the
    /// dashboard show.
    package func fillingRenderedBodies(_ interactions: [Interaction]) async -> [Interaction] {
        var filled = fillingCannedBodies(interactions)
        // One rendering per stub and request, shared by the entries that repeat it.
        var rendered: [RenderedBodyKey: Data?] = [:]
        for index in filled.indices where filled[index].responseBody == nil && filled[index].bodyBytesSent > 0 {
            let interaction = filled[index]
            guard let name = interaction.stubName else { continue }
            let key = RenderedBodyKey(stubName: name, request: interaction.request)
            let body: Data?
            if let known = rendered[key] {
                body = known
            } else {
                body = await renderedAgain(interaction)
                rendered[key] = body
            }
            guard let body, body.count >= interaction.bodyBytesSent else { continue }
            filled[index].responseBody = body.prefix(interaction.bodyBytesSent)
        }
        return filled
    }

    /// The body a stub rendered per request (an image, or a body transcoded) sent for
    /// `interaction`, rendered again: images are not kept per rendering, so
    /// ``fillingCannedBodies(_:)`` has none to give.
    ///
    /// Only for a stub still registered whose one fixed response renders the same bytes for the
    /// same request (not a closure, sequence or forward); and only when rendering it again gives
    /// the status, `Content-Type` and size that were sent, so a file changed since gives `nil`
    /// rather than another picture.
    package func bodyRenderedAgain(for interaction: Interaction) async -> Data? {
        guard interaction.bodyBytesSent > 0, let body = await renderedAgain(interaction), body.count >= interaction.bodyBytesSent else {
            return nil
        }
        return body.prefix(interaction.bodyBytesSent)
    }

    /// The whole body of ``bodyRenderedAgain(for:)``.
    private func renderedAgain(_ interaction: Interaction) async -> Data? {
        guard let name = interaction.stubName, let stub = stubs.first(where: { $0.name == name }),
              case .response(let response) = stub.answer, !response.rendersImmediately
        else { return nil }
        if case .forward = response.body { return nil }
        guard let rendered = try? await response.render(for: interaction.request, stubName: name, context: RenderContext(transcoder: transcoder))
        else { return nil }
        // What the client got: the rendering, or its 206 (the journal holds the request's Range).
        let answered = ConditionalRequest.answer(interaction.request, with: rendered)
        guard answered.status == interaction.status,
              answered.headers["Content-Type"] == interaction.responseHeaders["Content-Type"],
              answered.headers["Content-Length"] == interaction.responseHeaders["Content-Length"]
        else { return nil }
        return answered.body
    }

    /// `interactions` with the bodies of canned answers filled in where the journal kept none:
    /// the registry still holds those renderings, so the journal need not keep a copy per
    /// entry. A body whose stub or file changed since is left out.
    package func fillingCannedBodies(_ interactions: [Interaction]) -> [Interaction] {
        interactions.map { interaction in
            guard interaction.responseBody == nil, interaction.bodyBytesSent > 0, let renderID = interaction.renderID,
                  let name = interaction.stubName,
                  let body = state.withLock({ $0.entries[name]?.renderCache })?.body(ofRendering: renderID)
            else { return interaction }
            var filled = interaction
            filled.responseBody = body.prefix(interaction.bodyBytesSent)
            return filled
        }
    }
}

/// A stub and the request it answered: what rendering depends on.
private struct RenderedBodyKey: Hashable {
    let stubName: String
    let request: StubRequest
}
