// Thin C helpers over libwebp, libwebpdemux and libwebpmux for UnderstudyImages.
// Only UnderstudyImages imports this module; nothing here reaches its public API.
#ifndef CUNDERSTUDY_WEBP_SHIM_H
#define CUNDERSTUDY_WEBP_SHIM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <webp/decode.h>
#include <webp/encode.h>
#include <webp/demux.h>
#include <webp/mux.h>

/// The colour mode of ARGB words in the machine's byte order, as libwebp's pictures hold them.
static inline WEBP_CSP_MODE usd_webp_native_argb_mode(void) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return MODE_ARGB;
#else
    return MODE_BGRA;
#endif
}

/// Decodes a still WebP into `out` (width * height * 4 bytes, RGBA, non-premultiplied; with
/// `native_argb`, ARGB words in the machine's byte order) without any allocation of libwebp's
/// own for the output. Returns a VP8StatusCode.
static inline int usd_webp_decode_rgba(const uint8_t *data, size_t size,
                                       uint8_t *out, size_t out_size, int width, int native_argb) {
    WebPDecoderConfig config;
    if (!WebPInitDecoderConfig(&config)) return (int)VP8_STATUS_INVALID_PARAM;
    config.output.colorspace = native_argb ? usd_webp_native_argb_mode() : MODE_RGBA;
    config.output.is_external_memory = 1;
    config.output.u.RGBA.rgba = out;
    config.output.u.RGBA.stride = width * 4;
    config.output.u.RGBA.size = out_size;
    VP8StatusCode status = WebPDecode(data, size, &config);
    WebPFreeDecBuffer(&config.output);
    return (int)status;
}

/// Decodes the first frame of an animated WebP into `out` (canvas width * height * 4 bytes, RGBA,
/// non-premultiplied). Returns 1 on success, 0 on failure (`*stage` names what failed).
static inline int usd_webp_decode_first_frame(const uint8_t *data, size_t size,
                                              uint8_t *out, size_t out_size, int native_argb,
                                              const char **stage) {
    WebPAnimDecoderOptions options;
    if (!WebPAnimDecoderOptionsInit(&options)) { *stage = "WebPAnimDecoderOptionsInit"; return 0; }
    options.color_mode = native_argb ? usd_webp_native_argb_mode() : MODE_RGBA;
    options.use_threads = 0;
    WebPData webp_data = { data, size };
    WebPAnimDecoder *decoder = WebPAnimDecoderNew(&webp_data, &options);
    if (decoder == NULL) { *stage = "WebPAnimDecoderNew"; return 0; }
    WebPAnimInfo info;
    if (!WebPAnimDecoderGetInfo(decoder, &info)) {
        WebPAnimDecoderDelete(decoder);
        *stage = "WebPAnimDecoderGetInfo";
        return 0;
    }
    size_t needed = (size_t)info.canvas_width * (size_t)info.canvas_height * 4;
    if (needed != out_size) {
        WebPAnimDecoderDelete(decoder);
        *stage = "canvas size differs from the header";
        return 0;
    }
    uint8_t *frame = NULL;
    int timestamp = 0;
    if (!WebPAnimDecoderGetNext(decoder, &frame, &timestamp) || frame == NULL) {
        WebPAnimDecoderDelete(decoder);
        *stage = "WebPAnimDecoderGetNext";
        return 0;
    }
    memcpy(out, frame, needed);
    WebPAnimDecoderDelete(decoder);
    return 1;
}

/// Encodes RGBA pixels with the advanced API so that lossless output can keep the RGB values
/// under fully transparent pixels (`exact`), which the simple WebPEncodeLosslessRGBA drops.
/// On success returns 1 and hands back a buffer the caller frees with WebPFree.
/// On failure returns 0 and sets `*error_code` to a WebPEncodingError (or -1 for a bad config).
static inline int usd_webp_encode(const uint8_t *rgba, int width, int height,
                                  int lossless, float quality, int method,
                                  uint8_t **output, size_t *output_size, int *error_code) {
    *output = NULL;
    *output_size = 0;
    *error_code = 0;
    WebPConfig config;
    if (!WebPConfigInit(&config)) { *error_code = -1; return 0; }
    config.lossless = lossless;
    config.quality = quality;
    config.method = method;
    config.exact = lossless;
    if (!WebPValidateConfig(&config)) { *error_code = -1; return 0; }

    WebPPicture picture;
    if (!WebPPictureInit(&picture)) { *error_code = -1; return 0; }
    picture.use_argb = lossless;
    picture.width = width;
    picture.height = height;
    WebPMemoryWriter writer;
    WebPMemoryWriterInit(&writer);
    picture.writer = WebPMemoryWrite;
    picture.custom_ptr = &writer;
    if (!WebPPictureImportRGBA(&picture, rgba, width * 4)) {
        *error_code = picture.error_code != VP8_ENC_OK ? (int)picture.error_code
                                                       : (int)VP8_ENC_ERROR_OUT_OF_MEMORY;
        WebPPictureFree(&picture);
        WebPMemoryWriterClear(&writer);
        return 0;
    }
    int ok = WebPEncode(&config, &picture);
    if (!ok) {
        *error_code = (int)picture.error_code;
        WebPPictureFree(&picture);
        WebPMemoryWriterClear(&writer);
        return 0;
    }
    WebPPictureFree(&picture);
    *output = writer.mem;
    *output_size = writer.size;
    return 1;
}

/// A looping animated WebP encoder (libwebpmux's WebPAnimEncoder) for frames of one size.
/// Returns NULL when libwebpmux cannot make one; free it with usd_webp_anim_delete.
static inline WebPAnimEncoder *usd_webp_anim_new(int width, int height) {
    WebPAnimEncoderOptions options;
    if (!WebPAnimEncoderOptionsInit(&options)) return NULL;
    options.anim_params.loop_count = 0;  // for ever
    return WebPAnimEncoderNew(width, height, &options);
}

/// Adds an RGBA frame (width * 4 bytes a row) shown from `timestamp_ms`. The encoder copies
/// what it needs, so `rgba` may go once this returns. Returns 1 on success, 0 with `*stage`
/// naming what failed.
static inline int usd_webp_anim_add(WebPAnimEncoder *encoder, const uint8_t *rgba, int width, int height,
                                    int timestamp_ms, int lossless, float quality, int method,
                                    const char **stage) {
    WebPConfig config;
    if (!WebPConfigInit(&config)) { *stage = "WebPConfigInit"; return 0; }
    config.lossless = lossless;
    config.quality = quality;
    config.method = method;
    config.exact = lossless;
    if (!WebPValidateConfig(&config)) { *stage = "WebPValidateConfig"; return 0; }
    WebPPicture picture;
    if (!WebPPictureInit(&picture)) { *stage = "WebPPictureInit"; return 0; }
    picture.use_argb = 1;
    picture.width = width;
    picture.height = height;
    if (!WebPPictureImportRGBA(&picture, rgba, width * 4)) {
        WebPPictureFree(&picture);
        *stage = "WebPPictureImportRGBA";
        return 0;
    }
    int ok = WebPAnimEncoderAdd(encoder, &picture, timestamp_ms, &config);
    WebPPictureFree(&picture);
    if (!ok) { *stage = "WebPAnimEncoderAdd"; return 0; }
    return 1;
}

/// Ends the animation at `end_ms` (the last frame's duration) and hands back the file, which the
/// caller frees with WebPFree. Returns 1 on success, 0 with `*stage` naming what failed.
static inline int usd_webp_anim_finish(WebPAnimEncoder *encoder, int end_ms,
                                       uint8_t **output, size_t *output_size, const char **stage) {
    *output = NULL;
    *output_size = 0;
    WebPData data;
    WebPDataInit(&data);
    if (!WebPAnimEncoderAdd(encoder, NULL, end_ms, NULL)) { *stage = "WebPAnimEncoderAdd"; return 0; }
    if (!WebPAnimEncoderAssemble(encoder, &data)) {
        WebPDataClear(&data);
        *stage = "WebPAnimEncoderAssemble";
        return 0;
    }
    *output = (uint8_t *)data.bytes;
    *output_size = data.size;
    return 1;
}

static inline void usd_webp_anim_delete(WebPAnimEncoder *encoder) { WebPAnimEncoderDelete(encoder); }

/// Resamples the `crop_width` x `crop_height` region at (`crop_x`, `crop_y`) of an RGBA image
/// (`stride` bytes a row) to `width` x `height` RGBA in `out`, with libwebp's rescaler (as
/// `cwebp -resize`): area averaging when shrinking, bilinear when enlarging, on
/// alpha-premultiplied values so transparent pixels do not bleed their colour.
/// Returns 1 on success, 0 when out of memory.
static inline int usd_webp_rescale_rgba(const uint8_t *rgba, int stride,
                                        int crop_x, int crop_y, int crop_width, int crop_height,
                                        uint8_t *out, int width, int height) {
    WebPPicture picture;
    if (!WebPPictureInit(&picture)) return 0;
    picture.use_argb = 1;
    picture.width = crop_width;
    picture.height = crop_height;
    const uint8_t *origin = rgba + (size_t)crop_y * stride + (size_t)crop_x * 4;
    if (!WebPPictureImportRGBA(&picture, origin, stride) || !WebPPictureRescale(&picture, width, height)) {
        WebPPictureFree(&picture);
        return 0;
    }
    for (int y = 0; y < height; y++) {
        const uint32_t *row = picture.argb + (size_t)y * picture.argb_stride;
        uint8_t *dst = out + (size_t)y * width * 4;
        for (int x = 0; x < width; x++) {
            uint32_t argb = row[x];
            dst[x * 4] = (uint8_t)(argb >> 16);
            dst[x * 4 + 1] = (uint8_t)(argb >> 8);
            dst[x * 4 + 2] = (uint8_t)argb;
            dst[x * 4 + 3] = (uint8_t)(argb >> 24);
        }
    }
    WebPPictureFree(&picture);
    return 1;
}

/// Resamples the `crop_width` x `crop_height` region at (`crop_x`, `crop_y`) of ARGB words in
/// the machine's byte order (`stride` words a row) to `width` x `height` RGBA in `out`, as
/// usd_webp_rescale_rgba does but without copying the source: libwebp works on it in place
/// (premultiplying its alpha), so the caller must not use it afterwards.
/// Returns 1 on success, 0 when out of memory.
static inline int usd_webp_rescale_native_argb(uint8_t *argb, int stride,
                                               int crop_x, int crop_y, int crop_width, int crop_height,
                                               uint8_t *out, int width, int height) {
    WebPPicture picture;
    if (!WebPPictureInit(&picture)) return 0;
    picture.use_argb = 1;
    picture.width = crop_width;
    picture.height = crop_height;
    // A view: libwebp frees only memory it allocated (memory_argb_ stays NULL here).
    picture.argb = (uint32_t *)(void *)(argb + ((size_t)crop_y * stride + (size_t)crop_x) * 4);
    picture.argb_stride = stride;
    if (!WebPPictureRescale(&picture, width, height)) {
        WebPPictureFree(&picture);
        return 0;
    }
    for (int y = 0; y < height; y++) {
        const uint32_t *row = picture.argb + (size_t)y * picture.argb_stride;
        uint8_t *dst = out + (size_t)y * width * 4;
        for (int x = 0; x < width; x++) {
            uint32_t word = row[x];
            dst[x * 4] = (uint8_t)(word >> 16);
            dst[x * 4 + 1] = (uint8_t)(word >> 8);
            dst[x * 4 + 2] = (uint8_t)word;
            dst[x * 4 + 3] = (uint8_t)(word >> 24);
        }
    }
    WebPPictureFree(&picture);
    return 1;
}

#endif
