// Thin C helpers over libheif for UnderstudyImages.
// Only UnderstudyImages imports this module; nothing here reaches its public API.
// Written against libheif 1.15 (Debian bookworm) and later (Homebrew).
#ifndef CUNDERSTUDY_HEIF_SHIM_H
#define CUNDERSTUDY_HEIF_SHIM_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <libheif/heif.h>

/// Initialises libheif (its plugin registry) once per process, before any other call: without
/// it, libheif 1.13 and later register their built-in codecs lazily, which is not safe when two
/// threads make their first contexts at once.
static inline void usd_heif_init(void) {
#if LIBHEIF_HAVE_VERSION(1, 13, 0)
    heif_init(NULL);
#endif
}

/// What failed: libheif's error code, subcode and message (copied, as libheif's may live in
/// the context freed on failure). Code 0 is success.
typedef struct usd_heif_status {
    int code;
    int subcode;
    char message[160];
} usd_heif_status;

static inline usd_heif_status usd_heif_status_of(struct heif_error error) {
    usd_heif_status status;
    memset(&status, 0, sizeof status);
    status.code = (int)error.code;
    status.subcode = (int)error.subcode;
    if (error.code != heif_error_Ok && error.message != NULL) {
        strncpy(status.message, error.message, sizeof status.message - 1);
    }
    return status;
}

static inline usd_heif_status usd_heif_status_make(int code, const char *message) {
    struct heif_error error = { (enum heif_error_code)code, heif_suberror_Unspecified, message };
    return usd_heif_status_of(error);
}

/// A context over `size` bytes at `data` (which must outlive it) and its primary image's handle.
/// Returns code 0 on success; the caller frees both with usd_heif_close.
/// Opens a HEIF file from memory (without copying it). `max_side`: libheif's own limit on an
/// image's width and height (each), which it applies to every image it allocates, grids' outputs
/// included.
static inline usd_heif_status usd_heif_open(const uint8_t *data, size_t size, int max_side,
                                            struct heif_context **context, struct heif_image_handle **handle) {
    *context = NULL;
    *handle = NULL;
    struct heif_context *ctx = heif_context_alloc();
    if (ctx == NULL) {
        return usd_heif_status_make((int)heif_error_Memory_allocation_error, "heif_context_alloc failed");
    }
    heif_context_set_maximum_image_size_limit(ctx, max_side);
    struct heif_error error = heif_context_read_from_memory_without_copy(ctx, data, size, NULL);
    if (error.code == heif_error_Ok) error = heif_context_get_primary_image_handle(ctx, handle);
    if (error.code != heif_error_Ok) {
        usd_heif_status status = usd_heif_status_of(error);
        if (*handle) heif_image_handle_release(*handle);
        *handle = NULL;
        heif_context_free(ctx);
        return status;
    }
    *context = ctx;
    return usd_heif_status_of(error);
}

static inline void usd_heif_close(struct heif_context *context, struct heif_image_handle *handle) {
    if (handle) heif_image_handle_release(handle);
    if (context) heif_context_free(context);
}

/// Decodes the primary image into `out` (width * height * 4 bytes, 8-bit RGBA; opaque when it
/// has no alpha). Returns code 0 on success.
static inline usd_heif_status usd_heif_decode_rgba(struct heif_image_handle *handle,
                                                   uint8_t *out, int width, int height) {
    struct heif_image *image = NULL;
    struct heif_error error = heif_decode_image(handle, &image, heif_colorspace_RGB, heif_chroma_interleaved_RGBA, NULL);
    if (error.code != heif_error_Ok) return usd_heif_status_of(error);
    int stride = 0;
    const uint8_t *plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride);
    if (plane == NULL || heif_image_get_width(image, heif_channel_interleaved) != width ||
        heif_image_get_height(image, heif_channel_interleaved) != height) {
        heif_image_release(image);
        return usd_heif_status_make((int)heif_error_Decoder_plugin_error, "the decoded image differs from its header");
    }
    for (int y = 0; y < height; y++) {
        memcpy(out + (size_t)y * width * 4, plane + (size_t)y * stride, (size_t)width * 4);
    }
    heif_image_release(image);
    return usd_heif_status_make(0, NULL);
}

/// Growing memory that heif_context_write fills.
typedef struct usd_heif_buffer {
    uint8_t *bytes;
    size_t size;
    size_t capacity;
} usd_heif_buffer;

static inline struct heif_error usd_heif_buffer_write(struct heif_context *ctx, const void *data, size_t size, void *userdata) {
    (void)ctx;
    usd_heif_buffer *buffer = (usd_heif_buffer *)userdata;
    if (buffer->size + size > buffer->capacity) {
        size_t capacity = buffer->capacity ? buffer->capacity : 4096;
        while (capacity < buffer->size + size) capacity *= 2;
        uint8_t *grown = (uint8_t *)realloc(buffer->bytes, capacity);
        if (grown == NULL) {
            struct heif_error error = { heif_error_Encoding_error, heif_suberror_Cannot_write_output_data, "out of memory" };
            return error;
        }
        buffer->bytes = grown;
        buffer->capacity = capacity;
    }
    memcpy(buffer->bytes + buffer->size, data, size);
    buffer->size += size;
    struct heif_error ok = { heif_error_Ok, heif_suberror_Unspecified, "Success" };
    return ok;
}

/// Encodes RGBA pixels (width * 4 bytes a row) as HEIC (HEVC, through x265 where libheif has
/// it) at a lossy quality 0..100, with an alpha image unless `opaque`. On success `*output`
/// holds bytes the caller frees with free(). `*stage` names the step that failed.
static inline usd_heif_status usd_heif_encode(const uint8_t *rgba, int width, int height, int opaque, int quality,
                                              uint8_t **output, size_t *output_size, const char **stage) {
    *output = NULL;
    *output_size = 0;
    usd_heif_status status = usd_heif_status_make(0, NULL);
    struct heif_context *ctx = heif_context_alloc();
    struct heif_encoder *encoder = NULL;
    struct heif_image *image = NULL;
    struct heif_error error;
    usd_heif_buffer buffer = { NULL, 0, 0 };
    if (ctx == NULL) {
        *stage = "heif_context_alloc";
        return usd_heif_status_make((int)heif_error_Memory_allocation_error, "out of memory");
    }
    *stage = "heif_context_get_encoder_for_format";
    error = heif_context_get_encoder_for_format(ctx, heif_compression_HEVC, &encoder);
    if (error.code != heif_error_Ok) goto fail;
    *stage = "heif_encoder_set_lossy_quality";
    error = heif_encoder_set_lossy_quality(encoder, quality);
    if (error.code != heif_error_Ok) goto fail;
    *stage = "heif_image_create";
    error = heif_image_create(width, height, heif_colorspace_RGB,
                              opaque ? heif_chroma_interleaved_RGB : heif_chroma_interleaved_RGBA, &image);
    if (error.code != heif_error_Ok) goto fail;
    *stage = "heif_image_add_plane";
    error = heif_image_add_plane(image, heif_channel_interleaved, width, height, 8);
    if (error.code != heif_error_Ok) goto fail;
    {
        int stride = 0;
        uint8_t *plane = heif_image_get_plane(image, heif_channel_interleaved, &stride);
        for (int y = 0; y < height; y++) {
            const uint8_t *src = rgba + (size_t)y * width * 4;
            uint8_t *dst = plane + (size_t)y * stride;
            if (opaque) {
                for (int x = 0; x < width; x++) {
                    dst[x * 3] = src[x * 4];
                    dst[x * 3 + 1] = src[x * 4 + 1];
                    dst[x * 3 + 2] = src[x * 4 + 2];
                }
            } else {
                memcpy(dst, src, (size_t)width * 4);
            }
        }
    }
    *stage = "heif_context_encode_image";
    error = heif_context_encode_image(ctx, image, encoder, NULL, NULL);
    if (error.code != heif_error_Ok) goto fail;
    *stage = "heif_context_write";
    {
        struct heif_writer writer = { 1, usd_heif_buffer_write };
        error = heif_context_write(ctx, &writer, &buffer);
    }
    if (error.code != heif_error_Ok) goto fail;
    heif_image_release(image);
    heif_encoder_release(encoder);
    heif_context_free(ctx);
    *output = buffer.bytes;
    *output_size = buffer.size;
    return status;
fail:
    status = usd_heif_status_of(error);
    free(buffer.bytes);
    if (image) heif_image_release(image);
    if (encoder) heif_encoder_release(encoder);
    heif_context_free(ctx);
    return status;
}

#endif
