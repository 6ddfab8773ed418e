// Thin C helpers over giflib 5 for UnderstudyImages.
// Only UnderstudyImages imports this module; nothing here reaches its public API.
// giflib has no pkg-config file on Debian; the module map links "gif".
#ifndef CUNDERSTUDY_GIF_SHIM_H
#define CUNDERSTUDY_GIF_SHIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <gif_lib.h>

// MARK: Reading

/// Bytes giflib reads from memory; they must outlive the GifFileType.
typedef struct usd_gif_source {
    const uint8_t *data;
    size_t size;
    size_t offset;
} usd_gif_source;

static inline int usd_gif_source_read(GifFileType *gif, GifByteType *buffer, int length) {
    usd_gif_source *source = (usd_gif_source *)gif->UserData;
    size_t left = source->size - source->offset;
    size_t count = length < 0 ? 0 : (size_t)length;
    if (count > left) count = left;
    memcpy(buffer, source->data + source->offset, count);
    source->offset += count;
    return (int)count;
}

/// Reads the screen descriptor (and global colour table). NULL with `*error` a giflib error
/// code (D_GIF_ERR_...) on failure; free with usd_gif_close_reader.
static inline GifFileType *usd_gif_open_reader(usd_gif_source *source, int *error) {
    *error = 0;
    return DGifOpen(source, usd_gif_source_read, error);
}

static inline void usd_gif_close_reader(GifFileType *gif) {
    int error = 0;
    DGifCloseFile(gif, &error);
}

static inline int usd_gif_screen_width(const GifFileType *gif) { return gif->SWidth; }
static inline int usd_gif_screen_height(const GifFileType *gif) { return gif->SHeight; }

/// One image of a GIF with the graphic control that came before it.
typedef struct usd_gif_frame {
    int left, top, width, height;
    int transparent_index;   // -1: none
    int disposal;            // DISPOSAL_UNSPECIFIED, DISPOSE_DO_NOT, DISPOSE_BACKGROUND, DISPOSE_PREVIOUS
    int delay_cs;            // hundredths of a second
    const GifColorType *colors;  // owned by the GifFileType
    int color_count;
    uint8_t *indices;        // width * height colour indices, row by row; free with usd_gif_frame_free
} usd_gif_frame;

static inline void usd_gif_frame_free(usd_gif_frame *frame) {
    free(frame->indices);
    frame->indices = NULL;
}

/// Reads the next image: 1 with `*frame` filled, 0 at the trailer, -1 on failure with `*error`
/// a giflib error code, or D_GIF_ERR_IMAGE_DEFECT for an image of no pixels or no colour
/// table, or -2 when the image's width * height is over `pixel_limit` (nothing allocated).
/// `*loop_count` is set from a NETSCAPE2.0 extension when one is read (0: for ever).
static inline int usd_gif_next_frame(GifFileType *gif, long pixel_limit, usd_gif_frame *frame,
                                     int *loop_count, int *error) {
    memset(frame, 0, sizeof *frame);
    frame->transparent_index = NO_TRANSPARENT_COLOR;
    frame->disposal = DISPOSAL_UNSPECIFIED;
    *error = 0;
    GifRecordType record;
    for (;;) {
        if (DGifGetRecordType(gif, &record) == GIF_ERROR) { *error = gif->Error; return -1; }
        switch (record) {
        case EXTENSION_RECORD_TYPE: {
            int code = 0;
            GifByteType *block = NULL;
            if (DGifGetExtension(gif, &code, &block) == GIF_ERROR) { *error = gif->Error; return -1; }
            int netscape = 0;
            if (code == GRAPHICS_EXT_FUNC_CODE && block != NULL && block[0] >= 4) {
                GraphicsControlBlock gcb;
                if (DGifExtensionToGCB(block[0], block + 1, &gcb) == GIF_OK) {
                    frame->transparent_index = gcb.TransparentColor;
                    frame->disposal = gcb.DisposalMode;
                    frame->delay_cs = gcb.DelayTime;
                }
            } else if (code == APPLICATION_EXT_FUNC_CODE && block != NULL && block[0] == 11 &&
                       memcmp(block + 1, "NETSCAPE2.0", 11) == 0) {
                netscape = 1;
            }
            while (block != NULL) {
                if (DGifGetExtensionNext(gif, &block) == GIF_ERROR) { *error = gif->Error; return -1; }
                if (netscape && block != NULL && block[0] >= 3 && block[1] == 1) {
                    *loop_count = block[2] | (block[3] << 8);
                    netscape = 0;
                }
            }
            break;
        }
        case IMAGE_DESC_RECORD_TYPE: {
            if (DGifGetImageDesc(gif) == GIF_ERROR) { *error = gif->Error; return -1; }
            int width = gif->Image.Width, height = gif->Image.Height;
            if (width <= 0 || height <= 0) { *error = D_GIF_ERR_IMAGE_DEFECT; return -1; }
            if ((long)width * (long)height > pixel_limit) {
                frame->width = width;
                frame->height = height;
                return -2;
            }
            const ColorMapObject *map = gif->Image.ColorMap ? gif->Image.ColorMap : gif->SColorMap;
            if (map == NULL || map->Colors == NULL) { *error = D_GIF_ERR_NO_COLOR_MAP; return -1; }
            uint8_t *indices = (uint8_t *)malloc((size_t)width * (size_t)height);
            if (indices == NULL) { *error = D_GIF_ERR_NOT_ENOUGH_MEM; return -1; }
            if (gif->Image.Interlace) {
                static const int offsets[4] = { 0, 4, 2, 1 };
                static const int steps[4] = { 8, 8, 4, 2 };
                for (int pass = 0; pass < 4; pass++) {
                    for (int y = offsets[pass]; y < height; y += steps[pass]) {
                        if (DGifGetLine(gif, indices + (size_t)y * width, width) == GIF_ERROR) {
                            free(indices);
                            *error = gif->Error;
                            return -1;
                        }
                    }
                }
            } else {
                for (int y = 0; y < height; y++) {
                    if (DGifGetLine(gif, indices + (size_t)y * width, width) == GIF_ERROR) {
                        free(indices);
                        *error = gif->Error;
                        return -1;
                    }
                }
            }
            frame->left = gif->Image.Left;
            frame->top = gif->Image.Top;
            frame->width = width;
            frame->height = height;
            frame->colors = map->Colors;
            frame->color_count = map->ColorCount;
            frame->indices = indices;
            return 1;
        }
        case TERMINATE_RECORD_TYPE:
            return 0;
        default:
            break;
        }
    }
}

/// giflib's message for an error code ("Unknown error" when it has none).
static inline const char *usd_gif_error_string(int error) {
    const char *message = GifErrorString(error);
    return message ? message : "Unknown error";
}

// MARK: Writing

/// Growing memory that giflib writes to; free `bytes` with free().
typedef struct usd_gif_sink {
    uint8_t *bytes;
    size_t size;
    size_t capacity;
    int failed;
} usd_gif_sink;

static inline int usd_gif_sink_write(GifFileType *gif, const GifByteType *data, int length) {
    usd_gif_sink *sink = (usd_gif_sink *)gif->UserData;
    size_t count = length < 0 ? 0 : (size_t)length;
    if (sink->size + count > sink->capacity) {
        size_t capacity = sink->capacity ? sink->capacity : 4096;
        while (capacity < sink->size + count) capacity *= 2;
        uint8_t *grown = (uint8_t *)realloc(sink->bytes, capacity);
        if (grown == NULL) { sink->failed = 1; return 0; }
        sink->bytes = grown;
        sink->capacity = capacity;
    }
    memcpy(sink->bytes + sink->size, data, count);
    sink->size += count;
    return length;
}

/// Starts a GIF89a of `width` x `height` with no global colour table (each frame carries its
/// own); with `looping`, a NETSCAPE2.0 extension that repeats for ever. Returns NULL with
/// `*error` on failure; finish with usd_gif_finish.
static inline GifFileType *usd_gif_open_writer_loop(usd_gif_sink *sink, int width, int height, int loop_count, int *error);

static inline GifFileType *usd_gif_open_writer(usd_gif_sink *sink, int width, int height, int looping, int *error) {
    return usd_gif_open_writer_loop(sink, width, height, looping ? 0 : -1, error);
}

/// A writer whose NETSCAPE2.0 extension gives `loop_count` (0: for ever); none when it is
/// negative, so the animation plays once.
static inline GifFileType *usd_gif_open_writer_loop(usd_gif_sink *sink, int width, int height, int loop_count, int *error) {
    *error = 0;
    GifFileType *gif = EGifOpen(sink, usd_gif_sink_write, error);
    if (gif == NULL) return NULL;
    EGifSetGifVersion(gif, true);
    if (EGifPutScreenDesc(gif, width, height, 8, 0, NULL) == GIF_ERROR) goto fail;
    if (loop_count >= 0) {
        const GifByteType loop[3] = { 1, (GifByteType)(loop_count & 0xFF), (GifByteType)((loop_count >> 8) & 0xFF) };
        if (EGifPutExtensionLeader(gif, APPLICATION_EXT_FUNC_CODE) == GIF_ERROR ||
            EGifPutExtensionBlock(gif, 11, "NETSCAPE2.0") == GIF_ERROR ||
            EGifPutExtensionBlock(gif, 3, loop) == GIF_ERROR ||
            EGifPutExtensionTrailer(gif) == GIF_ERROR) goto fail;
    }
    return gif;
fail:
    *error = gif->Error;
    EGifCloseFile(gif, NULL);
    return NULL;
}

/// Writes one full-canvas image: `indices` (width * height), `palette` (`count` RGB triples, at
/// most 256), a transparent index or -1, a delay in hundredths of a second and a disposal mode.
/// Returns 1, or 0 with `*error`.
static inline int usd_gif_put_frame_at(GifFileType *gif, const uint8_t *indices, int left, int top, int width, int height,
                                       const uint8_t *palette, int count, int transparent_index,
                                       int delay_cs, int disposal, int *error);

static inline int usd_gif_put_frame(GifFileType *gif, const uint8_t *indices, int width, int height,
                                    const uint8_t *palette, int count, int transparent_index,
                                    int delay_cs, int disposal, int *error) {
    return usd_gif_put_frame_at(gif, indices, 0, 0, width, height, palette, count, transparent_index, delay_cs, disposal, error);
}

/// One frame at (left, top) of the screen: a sub-rectangle, as the animation hazards need.
static inline int usd_gif_put_frame_at(GifFileType *gif, const uint8_t *indices, int left, int top, int width, int height,
                                       const uint8_t *palette, int count, int transparent_index,
                                       int delay_cs, int disposal, int *error) {
    GraphicsControlBlock gcb;
    gcb.DisposalMode = disposal;
    gcb.UserInputFlag = false;
    gcb.DelayTime = delay_cs;
    gcb.TransparentColor = transparent_index;
    GifByteType extension[4];
    size_t length = EGifGCBToExtension(&gcb, extension);
    if (EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, (int)length, extension) == GIF_ERROR) {
        *error = gif->Error;
        return 0;
    }
    int size = 2;
    while (size < count) size *= 2;
    ColorMapObject *map = GifMakeMapObject(size, NULL);
    if (map == NULL) { *error = E_GIF_ERR_NOT_ENOUGH_MEM; return 0; }
    for (int i = 0; i < size; i++) {
        if (i < count) {
            map->Colors[i].Red = palette[i * 3];
            map->Colors[i].Green = palette[i * 3 + 1];
            map->Colors[i].Blue = palette[i * 3 + 2];
        } else {
            map->Colors[i].Red = map->Colors[i].Green = map->Colors[i].Blue = 0;
        }
    }
    int ok = EGifPutImageDesc(gif, left, top, width, height, false, map) != GIF_ERROR;
    GifFreeMapObject(map);
    for (int y = 0; ok && y < height; y++) {
        ok = EGifPutLine(gif, (GifPixelType *)(indices + (size_t)y * width), width) != GIF_ERROR;
    }
    if (!ok) { *error = gif->Error; return 0; }
    return 1;
}

/// Writes the trailer and frees the writer. Returns 1, or 0 with `*error`.
static inline int usd_gif_finish(GifFileType *gif, int *error) {
    *error = 0;
    return EGifCloseFile(gif, error) == GIF_OK ? 1 : 0;
}

#endif
