// C helpers over libpng for UnderstudyImages.
//
// libpng reports errors by longjmp. Every libpng call lives in the functions below, each of which
// does its own setjmp and returns a status code with the message, so a longjmp never crosses a
// Swift frame. Only UnderstudyImages imports this module; nothing here reaches its public API.
#ifndef CUNDERSTUDY_PNG_SHIM_H
#define CUNDERSTUDY_PNG_SHIM_H

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <png.h>

enum {
    USD_PNG_OK = 0,
    USD_PNG_TRUNCATED = 1,   // the data ended before libpng was done
    USD_PNG_ERROR = 2,       // libpng reported an error; see message
    USD_PNG_NO_MEMORY = 3,
};

typedef struct {
    int code;
    char message[256];
} usd_png_status;

typedef struct {
    const uint8_t *data;
    size_t size;
    size_t offset;
    usd_png_status *status;
} usd_png_reader;

typedef struct {
    uint8_t *data;
    size_t size;
    size_t capacity;
    int failed;
} usd_png_writer;

static inline void usd_png_set(usd_png_status *status, int code, const char *message) {
    status->code = code;
    strncpy(status->message, message, sizeof status->message - 1);
    status->message[sizeof status->message - 1] = '\0';
}

static inline void usd_png_error_fn(png_structp png, png_const_charp message) {
    usd_png_status *status = (usd_png_status *)png_get_error_ptr(png);
    // A truncation found by the read callback has already been recorded; keep it.
    if (status->code == USD_PNG_OK) usd_png_set(status, USD_PNG_ERROR, message);
    png_longjmp(png, 1);
}

static inline void usd_png_warning_fn(png_structp png, png_const_charp message) {
    (void)png;
    (void)message;  // warnings (bad ancillary chunks and the like) are not failures
}

static inline void usd_png_read_fn(png_structp png, png_bytep out, png_size_t length) {
    usd_png_reader *reader = (usd_png_reader *)png_get_io_ptr(png);
    if (length > reader->size - reader->offset) {
        usd_png_set(reader->status, USD_PNG_TRUNCATED, "unexpected end of data");
        png_error(png, "unexpected end of data");
    }
    memcpy(out, reader->data + reader->offset, length);
    reader->offset += length;
}

/// Sets up the transformations that turn any PNG into 8-bit RGBA (or, with `native_argb`, into
/// 32-bit ARGB words in the machine's byte order, as libwebp's pictures hold them), and checks
/// the result. Must be called after png_read_info, inside the caller's setjmp.
static inline int usd_png_configure_rgba(png_structp png, png_infop info, int native_argb) {
    int color_type = png_get_color_type(png, info);
    int bit_depth = png_get_bit_depth(png, info);
    // Palette to RGB, grey below 8 bits to 8 bits, tRNS to an alpha channel.
    png_set_expand(png);
    if (bit_depth == 16) png_set_scale_16(png);  // rounds (v * 255 / 65535), unlike strip_16
    if (color_type == PNG_COLOR_TYPE_GRAY || color_type == PNG_COLOR_TYPE_GRAY_ALPHA)
        png_set_gray_to_rgb(png);
    int filler = PNG_FILLER_AFTER;
    if (native_argb) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        png_set_swap_alpha(png);  // A, R, G, B
        filler = PNG_FILLER_BEFORE;
#else
        png_set_bgr(png);  // B, G, R, A: a little-endian ARGB word
#endif
    }
    if (!(color_type & PNG_COLOR_MASK_ALPHA) && !png_get_valid(png, info, PNG_INFO_tRNS))
        png_set_add_alpha(png, 0xFF, filler);
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    return png_get_rowbytes(png, info) == (png_size_t)png_get_image_width(png, info) * 4;
}

/// Decodes a whole PNG into `out`, which must hold exactly width * height * 4 bytes (RGBA, 8-bit,
/// row-major; with `native_argb`, ARGB words in the machine's byte order) for the size in the
/// IHDR chunk. Returns a USD_PNG_* code.
static inline int usd_png_decode_rgba(const uint8_t *data, size_t size,
                                      uint8_t *out, size_t out_size, int native_argb, usd_png_status *status) {
    status->code = USD_PNG_OK;
    status->message[0] = '\0';
    usd_png_reader reader = { data, size, 0, status };
    png_bytep *volatile rows = NULL;
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, status,
                                             usd_png_error_fn, usd_png_warning_fn);
    if (png == NULL) { usd_png_set(status, USD_PNG_NO_MEMORY, "png_create_read_struct failed"); return status->code; }
    png_infop info = png_create_info_struct(png);
    if (info == NULL) {
        png_destroy_read_struct(&png, NULL, NULL);
        usd_png_set(status, USD_PNG_NO_MEMORY, "png_create_info_struct failed");
        return status->code;
    }
    if (setjmp(png_jmpbuf(png))) {
        free(rows);
        png_destroy_read_struct(&png, &info, NULL);
        return status->code;
    }
    png_set_user_limits(png, 0x7fffffff, 0x7fffffff);
    png_set_read_fn(png, &reader, usd_png_read_fn);
    png_read_info(png, info);
    uint32_t width = png_get_image_width(png, info);
    uint32_t height = png_get_image_height(png, info);
    if ((size_t)width * (size_t)height * 4 != out_size) {
        png_error(png, "image size differs from the header read before");
    }
    if (!usd_png_configure_rgba(png, info, native_argb)) {
        png_error(png, "cannot convert this PNG to 8-bit RGBA");
    }
    rows = (png_bytep *)malloc(sizeof(png_bytep) * height);
    if (rows == NULL) png_error(png, "out of memory for row pointers");
    for (uint32_t y = 0; y < height; y++) rows[y] = out + (size_t)y * width * 4;
    png_read_image(png, rows);
    png_read_end(png, NULL);
    free(rows);
    rows = NULL;
    png_destroy_read_struct(&png, &info, NULL);
    return USD_PNG_OK;
}

static inline void usd_png_write_fn(png_structp png, png_bytep bytes, png_size_t length) {
    usd_png_writer *writer = (usd_png_writer *)png_get_io_ptr(png);
    if (length > writer->capacity - writer->size) {
        size_t capacity = writer->capacity ? writer->capacity : 4096;
        while (length > capacity - writer->size) capacity *= 2;
        uint8_t *grown = (uint8_t *)realloc(writer->data, capacity);
        if (grown == NULL) { writer->failed = 1; png_error(png, "out of memory for the PNG output"); }
        writer->data = grown;
        writer->capacity = capacity;
    }
    memcpy(writer->data + writer->size, bytes, length);
    writer->size += length;
}

static inline void usd_png_flush_fn(png_structp png) { (void)png; }

/// Encodes 8-bit RGBA pixels as a non-interlaced PNG.
/// - `drop_alpha`: write colour type RGB (the caller checked every alpha is 255).
/// - `compression_level`: zlib level 0...9; `filters`: PNG_FILTER_* flags.
/// - `size_hint`: initial output capacity in bytes (0 for a default).
/// On success `*output` is a malloc'd buffer the caller frees with usd_png_free.
static inline int usd_png_encode_rgba(const uint8_t *rgba, uint32_t width, uint32_t height,
                                      int drop_alpha, int compression_level, int filters,
                                      size_t size_hint,
                                      uint8_t **output, size_t *output_size,
                                      usd_png_status *status) {
    status->code = USD_PNG_OK;
    status->message[0] = '\0';
    *output = NULL;
    *output_size = 0;
    // volatile: modified after setjmp and read after a longjmp.
    uint8_t *volatile hinted = size_hint ? (uint8_t *)malloc(size_hint) : NULL;
    usd_png_writer writer = { hinted, 0, hinted ? size_hint : 0, 0 };
    usd_png_writer *volatile writer_ptr = &writer;
    png_bytep *volatile rows = NULL;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, status,
                                              usd_png_error_fn, usd_png_warning_fn);
    if (png == NULL) {
        free(writer.data);
        usd_png_set(status, USD_PNG_NO_MEMORY, "png_create_write_struct failed");
        return status->code;
    }
    png_infop info = png_create_info_struct(png);
    if (info == NULL) {
        free(writer.data);
        png_destroy_write_struct(&png, NULL);
        usd_png_set(status, USD_PNG_NO_MEMORY, "png_create_info_struct failed");
        return status->code;
    }
    if (setjmp(png_jmpbuf(png))) {
        free(rows);
        free(writer_ptr->data);
        png_destroy_write_struct(&png, &info);
        return status->code;
    }
    png_set_user_limits(png, 0x7fffffff, 0x7fffffff);
    png_set_write_fn(png, writer_ptr, usd_png_write_fn, usd_png_flush_fn);
    png_set_compression_level(png, compression_level);
    png_set_filter(png, PNG_FILTER_TYPE_BASE, filters);
    png_set_IHDR(png, info, width, height, 8,
                 drop_alpha ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_RGB_ALPHA,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_BASE, PNG_FILTER_TYPE_BASE);
    png_write_info(png, info);
    if (drop_alpha) png_set_filler(png, 0, PNG_FILLER_AFTER);  // skips the 4th byte of each pixel
    rows = (png_bytep *)malloc(sizeof(png_bytep) * height);
    if (rows == NULL) png_error(png, "out of memory for row pointers");
    for (uint32_t y = 0; y < height; y++) rows[y] = (png_bytep)(rgba + (size_t)y * width * 4);
    png_write_image(png, rows);
    png_write_end(png, NULL);
    free(rows);
    rows = NULL;
    png_destroy_write_struct(&png, &info);
    *output = writer_ptr->data;
    *output_size = writer_ptr->size;
    return USD_PNG_OK;
}

/// What a hazard PNG is, beyond its rows: the IHDR fields, and the PLTE, tRNS and iCCP
/// chunks when given (a NULL pointer or a zero count leaves a chunk out).
typedef struct {
    uint32_t width;
    uint32_t height;
    int bit_depth;              // 1, 2, 4, 8 or 16
    int color_type;             // a PNG_COLOR_TYPE_*
    int interlaced;             // Adam7 when non-zero
    const uint8_t *palette;     // RGB triples
    int palette_count;
    const uint8_t *trans;       // one alpha per palette entry
    int trans_count;
    const uint8_t *icc;         // an ICC profile for iCCP, or NULL
    size_t icc_size;
    const uint8_t *exif;        // a TIFF structure for eXIf, or NULL
    size_t exif_size;
} usd_png_layout;

/// Encodes a PNG exactly as `layout` describes it, for the image hazards (16-bit, grey+alpha,
/// indexed with tRNS, Adam7 interlaced, an ICC profile, EXIF). `rows` holds height rows of packed samples as PNG
/// stores them (big-endian 16-bit samples, sub-byte samples packed high bits first), each
/// png_get_rowbytes long; libpng does the filtering, interlacing and compression (level 9,
/// so the bytes are the same on every run). On success `*output` is a malloc'd buffer the
/// caller frees with usd_png_free.
static inline int usd_png_encode_layout(const uint8_t *rows_data, size_t rows_size, const usd_png_layout *layout,
                                        uint8_t **output, size_t *output_size, usd_png_status *status) {
    status->code = USD_PNG_OK;
    status->message[0] = '\0';
    *output = NULL;
    *output_size = 0;
    usd_png_writer writer = { NULL, 0, 0, 0 };
    usd_png_writer *volatile writer_ptr = &writer;
    png_bytep *volatile rows = NULL;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, status,
                                              usd_png_error_fn, usd_png_warning_fn);
    if (png == NULL) {
        usd_png_set(status, USD_PNG_NO_MEMORY, "png_create_write_struct failed");
        return status->code;
    }
    png_infop info = png_create_info_struct(png);
    if (info == NULL) {
        png_destroy_write_struct(&png, NULL);
        usd_png_set(status, USD_PNG_NO_MEMORY, "png_create_info_struct failed");
        return status->code;
    }
    if (setjmp(png_jmpbuf(png))) {
        free(rows);
        free(writer_ptr->data);
        png_destroy_write_struct(&png, &info);
        return status->code;
    }
    png_set_write_fn(png, writer_ptr, usd_png_write_fn, usd_png_flush_fn);
    png_set_compression_level(png, 9);
    png_set_IHDR(png, info, layout->width, layout->height, layout->bit_depth, layout->color_type,
                 layout->interlaced ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_BASE, PNG_FILTER_TYPE_BASE);
    if (layout->palette != NULL && layout->palette_count > 0) {
        png_color colours[256];
        for (int i = 0; i < layout->palette_count && i < 256; i++) {
            colours[i].red = layout->palette[i * 3];
            colours[i].green = layout->palette[i * 3 + 1];
            colours[i].blue = layout->palette[i * 3 + 2];
        }
        png_set_PLTE(png, info, colours, layout->palette_count);
    }
    if (layout->trans != NULL && layout->trans_count > 0)
        png_set_tRNS(png, info, layout->trans, layout->trans_count, NULL);
    // Both go ahead of IDAT, where a decoder reading the header finds them.
    if (layout->icc != NULL && layout->icc_size > 0)
        png_set_iCCP(png, info, "ICC Profile", PNG_COMPRESSION_TYPE_BASE, layout->icc, (png_uint_32)layout->icc_size);
    if (layout->exif != NULL && layout->exif_size > 0)
        png_set_eXIf_1(png, info, (png_uint_32)layout->exif_size, (png_bytep)layout->exif);
    png_write_info(png, info);
    // png_write_image then writes each of Adam7's seven passes from the whole rows.
    if (layout->interlaced) png_set_interlace_handling(png);
    size_t stride = png_get_rowbytes(png, info);
    if (stride * layout->height != rows_size) png_error(png, "the rows are not the size the layout gives");
    rows = (png_bytep *)malloc(sizeof(png_bytep) * layout->height);
    if (rows == NULL) png_error(png, "out of memory for row pointers");
    for (uint32_t y = 0; y < layout->height; y++) rows[y] = (png_bytep)(rows_data + (size_t)y * stride);
    png_write_image(png, rows);
    png_write_end(png, NULL);
    free(rows);
    rows = NULL;
    png_destroy_write_struct(&png, &info);
    *output = writer_ptr->data;
    *output_size = writer_ptr->size;
    return USD_PNG_OK;
}

static inline void usd_png_free(uint8_t *buffer) { free(buffer); }

/// The libpng version this module was built against, e.g. "1.6.39".
static inline const char *usd_png_version(void) { return PNG_LIBPNG_VER_STRING; }

#endif
