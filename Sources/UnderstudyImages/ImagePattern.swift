/// What a generated image shows (see ``ImageGenerator``).
public enum ImagePattern: Sendable, Hashable {
    /// An 8 x 8 board of black and white squares, white at the top left; squares are
    /// `max(1, min(width, height) / 8)` pixels wide, so the board fills the smaller side.
    case checkerboard
    /// Red rising from 0 at the left edge to 255 at the right, green from 0 at the top to 255 at
    /// the bottom, blue 128, opaque.
    case gradient
    /// Every pixel the given colour.
    case solid(RGBAColor)
    /// Photograph-like content: smooth colour fields, a soft bright disc and fine grain
    /// (``ImageGenerator/photoLike(width:height:seed:opaque:pixelLimit:)`` with seed 1), so
    /// lossy encoders compress it as they would a photo. The same size gives the same pixels.
    case photo
}
