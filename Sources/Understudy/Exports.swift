// `import Understudy` is enough to write `.image(.file(url), as: .png)`: the image types a stub
// names (sources, formats, patterns, colours, kinds, damage, resizing and the transcoder a
// registry uses) are re-exported one by one. The codecs' own types (`RGBAImage`,
// `ImageGenerator`, `ImageError`) stay in UnderstudyImages: `import
// UnderstudyImages` to decode or draw pixels. The C modules stay private to UnderstudyImages.
@_exported import enum UnderstudyImages.ImageSource
@_exported import enum UnderstudyImages.ImageFormat
@_exported import enum UnderstudyImages.ImagePattern
@_exported import struct UnderstudyImages.RGBAColor
@_exported import enum UnderstudyImages.ImageKind
@_exported import enum UnderstudyImages.ImageDamage
@_exported import struct UnderstudyImages.ImageResize
@_exported import class UnderstudyImages.ImageTranscoder
@_exported import enum UnderstudyImages.Hazard
@_exported import enum UnderstudyImages.HazardGroup
