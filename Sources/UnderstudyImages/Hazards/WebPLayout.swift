import Foundation

/// The chunks of an extended WebP hazard, for libwebp's mux to assemble (with the C codecs):
/// each frame's bitstream (a simple WebP file libwebp encoded), where it goes on an animation's
/// canvas, and the ICCP, EXIF and XMP chunks.
struct WebPLayout {
    /// One image of the file: the whole of a still, or an ANMF frame of an animation.
    struct Frame {
        var bitstream: Data
        /// Even, as ANMF stores half the offset.
        var x = 0
        var y = 0
        var milliseconds = 100
        /// Alpha-blend onto the canvas (else replace the rectangle, transparent pixels included).
        var blend = true
        /// Clear the rectangle to the background after the frame is shown.
        var dispose = false
    }

    var frames: [Frame]
    /// The canvas and ANIM loop count (0: for ever) of an animation; `nil` for a still image,
    /// whose canvas is its one frame's size.
    var animation: (width: Int, height: Int, loopCount: Int)?
    /// An ICC profile for ICCP, or none.
    var iccProfile: [UInt8] = []
    /// A TIFF structure for EXIF, or none.
    var exif: [UInt8] = []
    /// An XMP packet for the `XMP ` chunk, or none.
    var xmp: [UInt8] = []
}
