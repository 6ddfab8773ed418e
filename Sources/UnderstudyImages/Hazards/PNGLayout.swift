/// The IHDR fields and palette chunks of a hazard PNG, for the encoder that writes them as
/// given (libpng with the C codecs).
struct PNGLayout {
    var width: Int
    var height: Int
    /// 1, 2, 4, 8 or 16.
    var bitDepth: Int
    /// 0 grey, 2 RGB, 3 indexed, 4 grey and alpha, 6 RGBA.
    var colourType: Int
    var interlaced = false
    /// RGB triples, for colour type 3.
    var palette: [[UInt8]] = []
    /// One alpha per palette entry (the tRNS chunk), or none.
    var transparency: [UInt8] = []
    /// An ICC profile for iCCP, or none.
    var iccProfile: [UInt8] = []
    /// A TIFF structure (no "Exif" prefix) for eXIf, or none.
    var exif: [UInt8] = []
}
