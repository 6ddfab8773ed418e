// No code: this module only brings libwebp's and libavif's C modules (CUnderstudyWebP,
// CUnderstudyAVIF) into UnderstudyImages on macOS with the HomebrewCodecs trait, where
// UnderstudyImages imports them itself. Package.swift says why it is a target of its own.
