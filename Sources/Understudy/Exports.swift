// `import Understudy` is enough to write `.image(.file(url), as: .png)`: the image model
// (ImageSource, ImageFormat, ImagePattern, RGBAColor, ImageTranscoder) is part of the stub
// API. Only the Swift module is re-exported; the C modules stay private to UnderstudyImages.
@_exported import UnderstudyImages
