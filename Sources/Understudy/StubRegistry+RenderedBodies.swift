import Foundation

extension StubRegistry {
    /// The body an image stub sent for `interaction`, rendered again: what the server's
    /// dashboard shows as a thumbnail when the journal kept no body (images are rendered per
    /// request, so ``fillingCannedBodies(_:)`` has none to give).
    ///
    /// Only for a stub still registered whose one fixed response is an image (`.image`:
    /// generated, or a file transcoded), which renders the same bytes for the same request;
    /// and only when rendering it again gives the status, `Content-Type` and size that were
    /// sent, so a file changed since gives `nil` rather than another picture.
    package func imageBodyRenderedAgain(for interaction: Interaction) async -> Data? {
        guard interaction.bodyBytesSent > 0, let name = interaction.stubName,
              let stub = stubs.first(where: { $0.name == name }), case .response(let response) = stub.answer,
              case .image = response.body
        else { return nil }
        guard let rendered = try? await response.render(for: interaction.request, stubName: name, context: RenderContext(transcoder: transcoder)),
              rendered.status == interaction.status, rendered.body.count >= interaction.bodyBytesSent,
              rendered.headers["Content-Type"] == interaction.responseHeaders["Content-Type"],
              rendered.headers["Content-Length"] == interaction.responseHeaders["Content-Length"]
        else { return nil }
        return rendered.body.prefix(interaction.bodyBytesSent)
    }
}
