/// A frame of a hazard GIF placed on its logical screen: where it goes, its delay in hundredths
/// of a second, and what becomes of its rectangle before the next frame is drawn.
struct GIFFrame {
    /// GIF's disposal methods, by the values the graphic control extension stores.
    enum Disposal: Int32 {
        /// Left on the screen (do not dispose).
        case keep = 1
        /// Restored to the background, which browsers take as transparent.
        case background = 2
        /// Restored to what the screen held before this frame was drawn.
        case previous = 3
    }

    var image: RGBAImage
    var left = 0
    var top = 0
    var delay: Int
    var disposal = Disposal.keep
}
