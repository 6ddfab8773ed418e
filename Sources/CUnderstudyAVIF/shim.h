// Thin C helpers over libavif for UnderstudyImages.
// Only UnderstudyImages imports this module; nothing here reaches its public API.
// Written against libavif 0.11 (Debian bookworm) and 1.x (Homebrew): the differences are
// guarded by AVIF_VERSION.
#ifndef CUNDERSTUDY_AVIF_SHIM_H
#define CUNDERSTUDY_AVIF_SHIM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <avif/avif.h>

/// A decoder over `size` bytes at `data` (which must outlive it), parsed: its width, height,
/// depth, alpha and frame count are known, no pixels are decoded yet. Returns an avifResult;
/// on success `*out` is a decoder the caller frees with avifDecoderDestroy.
/// The caller checks the header's size (`ispe`) against its limit; usd_avif_limit then makes the
/// AV1 decoder refuse larger frames whatever the container claims.
/// Parses the container; on failure `*out` is NULL and libavif's own diagnostic (why, in words)
/// is copied into `diagnostic` (`diagnostic_size` bytes, NUL-terminated).
static inline int usd_avif_open(const uint8_t *data, size_t size, avifDecoder **out, char *diagnostic, size_t diagnostic_size) {
    *out = NULL;
    if (diagnostic_size > 0) diagnostic[0] = 0;
    avifDecoder *decoder = avifDecoderCreate();
    if (decoder == NULL) return (int)AVIF_RESULT_OUT_OF_MEMORY;
    decoder->maxThreads = 1;
    decoder->ignoreExif = AVIF_TRUE;
    decoder->ignoreXMP = AVIF_TRUE;
    avifResult result = avifDecoderSetIOMemory(decoder, data, size);
    if (result == AVIF_RESULT_OK) result = avifDecoderParse(decoder);
    if (result != AVIF_RESULT_OK) {
        if (diagnostic_size > 0) {
            strncpy(diagnostic, decoder->diag.error, diagnostic_size - 1);
            diagnostic[diagnostic_size - 1] = 0;
        }
        avifDecoderDestroy(decoder);
        return (int)result;
    }
    *out = decoder;
    return (int)AVIF_RESULT_OK;
}

/// Lowers the most pixels the AV1 decoder (dav1d) allocates for a frame, checked before it
/// allocates. Set after parsing, because libavif 0.11 also holds the container's header to it
/// and answers a mere "BMFF parsing failed". libavif allows only lowering its default.
static inline void usd_avif_limit(avifDecoder *decoder, uint32_t pixel_limit) {
    if (pixel_limit > 0 && pixel_limit < decoder->imageSizeLimit) decoder->imageSizeLimit = pixel_limit;
}

static inline uint32_t usd_avif_width(const avifDecoder *decoder) { return decoder->image->width; }
static inline uint32_t usd_avif_height(const avifDecoder *decoder) { return decoder->image->height; }
static inline uint32_t usd_avif_depth(const avifDecoder *decoder) { return decoder->image->depth; }
static inline int usd_avif_has_alpha(const avifDecoder *decoder) { return decoder->alphaPresent ? 1 : 0; }
static inline int usd_avif_frame_count(const avifDecoder *decoder) { return decoder->imageCount; }

/// Decodes the next frame into `out` (width * height * 4 bytes, 8-bit RGBA, non-premultiplied),
/// whatever the stored depth (8, 10 or 12 bits). A frame whose size differs from the first is
/// AVIF_RESULT_INVALID_IMAGE_GRID (`out` is sized from the first). Returns an avifResult.
static inline int usd_avif_next_rgba(avifDecoder *decoder, uint8_t *out, size_t out_size) {
    uint32_t width = decoder->image->width, height = decoder->image->height;
    avifResult result = avifDecoderNextImage(decoder);
    if (result != AVIF_RESULT_OK) return (int)result;
    if (decoder->image->width != width || decoder->image->height != height ||
        (size_t)width * height * 4 != out_size) {
        return (int)AVIF_RESULT_INVALID_IMAGE_GRID;
    }
    avifRGBImage rgb;
    avifRGBImageSetDefaults(&rgb, decoder->image);
    rgb.format = AVIF_RGB_FORMAT_RGBA;
    rgb.depth = 8;
    rgb.pixels = out;
    rgb.rowBytes = width * 4;
    return (int)avifImageYUVToRGB(decoder->image, &rgb);
}

/// The quantizer (0 best .. 63 worst) libavif 1.x's `quality` maps to, so that 0.11 (which has
/// only quantizers) and 1.x encode a quality alike: ((100 - quality) * 63 + 50) / 100.
static inline int usd_avif_quantizer(int quality) {
    if (quality < 0) quality = 0;
    if (quality > 100) quality = 100;
    return ((100 - quality) * 63 + 50) / 100;
}

/// An AV1 encoder at a quality (0..100) and speed (0 slowest .. 10 fastest) for colour and
/// alpha alike, one thread, `timescale` ticks a second. NULL when out of memory.
static inline avifEncoder *usd_avif_encoder_new(int quality, int speed, uint64_t timescale) {
    avifEncoder *encoder = avifEncoderCreate();
    if (encoder == NULL) return NULL;
    encoder->maxThreads = 1;
    encoder->speed = speed;
    encoder->timescale = timescale;
#if AVIF_VERSION >= 1000000
    encoder->quality = quality;
    encoder->qualityAlpha = quality;
    encoder->repetitionCount = AVIF_REPETITION_COUNT_INFINITE;
#else
    // 0.11 has no repetition count: its sequences carry no edit list, which players loop.
    int quantizer = usd_avif_quantizer(quality);
    encoder->minQuantizer = quantizer;
    encoder->maxQuantizer = quantizer;
    encoder->minQuantizerAlpha = quantizer;
    encoder->maxQuantizerAlpha = quantizer;
#endif
    return encoder;
}

/// Adds an RGBA frame (width * 4 bytes a row) shown for `duration` ticks, as 8-bit YUV 4:2:0
/// (with an alpha plane unless `opaque`). `single` marks a still image. Returns an avifResult.
static inline int usd_avif_encoder_add(avifEncoder *encoder, const uint8_t *rgba, uint32_t width, uint32_t height,
                                       int opaque, uint64_t duration, int single) {
    avifImage *image = avifImageCreate(width, height, 8, AVIF_PIXEL_FORMAT_YUV420);
    if (image == NULL) return (int)AVIF_RESULT_OUT_OF_MEMORY;
    image->yuvRange = AVIF_RANGE_FULL;
    image->colorPrimaries = AVIF_COLOR_PRIMARIES_BT709;
    image->transferCharacteristics = AVIF_TRANSFER_CHARACTERISTICS_SRGB;
    image->matrixCoefficients = AVIF_MATRIX_COEFFICIENTS_BT601;
    avifRGBImage rgb;
    avifRGBImageSetDefaults(&rgb, image);
    rgb.format = AVIF_RGB_FORMAT_RGBA;
    rgb.depth = 8;
    rgb.ignoreAlpha = opaque ? AVIF_TRUE : AVIF_FALSE;
    rgb.pixels = (uint8_t *)rgba;
    rgb.rowBytes = width * 4;
    avifResult result = avifImageRGBToYUV(image, &rgb);
    if (result == AVIF_RESULT_OK) {
        result = avifEncoderAddImage(encoder, image, duration,
                                     single ? AVIF_ADD_IMAGE_FLAG_SINGLE : AVIF_ADD_IMAGE_FLAG_NONE);
    }
    avifImageDestroy(image);
    return (int)result;
}

/// Finishes the file; on success `*output` / `*output_size` hold bytes the caller frees with
/// usd_avif_free. Returns an avifResult.
static inline int usd_avif_encoder_finish(avifEncoder *encoder, uint8_t **output, size_t *output_size) {
    avifRWData data = AVIF_DATA_EMPTY;
    avifResult result = avifEncoderFinish(encoder, &data);
    if (result != AVIF_RESULT_OK) {
        avifRWDataFree(&data);
        *output = NULL;
        *output_size = 0;
        return (int)result;
    }
    *output = data.data;
    *output_size = data.size;
    return (int)AVIF_RESULT_OK;
}

static inline void usd_avif_free(uint8_t *bytes) {
    avifRWData data = { bytes, 0 };
    avifRWDataFree(&data);
}

/// The AV1 codec libavif uses, e.g. "aom" or "dav1d"; `encode` 1 for the encoder.
static inline const char *usd_avif_codec_name(int encode) {
    const char *name = avifCodecName(AVIF_CODEC_CHOICE_AUTO, encode ? AVIF_CODEC_FLAG_CAN_ENCODE : AVIF_CODEC_FLAG_CAN_DECODE);
    return name ? name : "none";
}

#endif
