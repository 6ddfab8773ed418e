// C helpers over libjpeg-turbo (its libjpeg API) for UnderstudyImages.
//
// libjpeg reports errors through error_exit, which must not return. Every libjpeg call lives in
// the functions below, each of which does its own setjmp and has error_exit longjmp back to it,
// then returns a status code with libjpeg's message: a longjmp never crosses a Swift frame.
// Only UnderstudyImages imports this module; nothing here reaches its public API.
#ifndef CUNDERSTUDY_JPEG_SHIM_H
#define CUNDERSTUDY_JPEG_SHIM_H

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>   // jpeglib.h needs FILE
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include <jerror.h>

enum {
    USD_JPEG_OK = 0,
    USD_JPEG_TRUNCATED = 1,   // the data ended before the image did
    USD_JPEG_ERROR = 2,       // libjpeg reported an error (or corrupt entropy data); see message
    USD_JPEG_NO_MEMORY = 3,
    USD_JPEG_UNSUPPORTED = 4, // a colour space we cannot turn into RGB
};

/// A progressive JPEG may have any number of scans, each a pass over the whole image; a
/// crafted file with thousands of tiny scans takes minutes to decode. Real encoders write
/// about 10; libjpeg-turbo's own fuzzers stop at 500.
#define USD_JPEG_MAX_SCANS 500

typedef struct {
    int code;
    char message[JMSG_LENGTH_MAX + 64];
} usd_jpeg_status;

typedef struct {
    struct jpeg_error_mgr base;   // first, so a j_common_ptr's err can be cast to this
    jmp_buf jump;
    usd_jpeg_status *status;
    int saw_end_of_data;          // libjpeg warned JWRN_JPEG_EOF: the data is cut short
    int corrupt_data_code;        // the first warning that means garbage pixels, or 0
    char corrupt_data_message[JMSG_LENGTH_MAX];
} usd_jpeg_error;

typedef struct {
    uint32_t width;
    uint32_t height;
    int components;        // 1 grey, 3 YCbCr/RGB, 4 CMYK/YCCK
    int progressive;
    int color_space;       // a J_COLOR_SPACE
} usd_jpeg_header;

static inline void usd_jpeg_set(usd_jpeg_status *status, int code, const char *message) {
    status->code = code;
    strncpy(status->message, message, sizeof status->message - 1);
    status->message[sizeof status->message - 1] = '\0';
}

static inline void usd_jpeg_error_exit(j_common_ptr cinfo) {
    usd_jpeg_error *error = (usd_jpeg_error *)cinfo->err;
    char message[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, message);
    usd_jpeg_set(error->status, error->saw_end_of_data ? USD_JPEG_TRUNCATED : USD_JPEG_ERROR, message);
    longjmp(error->jump, 1);
}

/// Warnings are not printed. Two kinds are remembered: the end of the data (libjpeg then
/// inserts an end-of-image marker and goes on, leaving the rest of the image grey) and damaged
/// entropy-coded data (garbage pixels). Other warnings (extra bytes before a marker and the
/// like) are harmless and ignored.
static inline void usd_jpeg_emit_message(j_common_ptr cinfo, int level) {
    usd_jpeg_error *error = (usd_jpeg_error *)cinfo->err;
    if (level >= 0) return;  // trace messages
    int code = cinfo->err->msg_code;
    if (code == JWRN_JPEG_EOF) {
        error->saw_end_of_data = 1;
    } else if (error->corrupt_data_code == 0 &&
               (code == JWRN_HIT_MARKER || code == JWRN_HUFF_BAD_CODE || code == JWRN_MUST_RESYNC ||
                code == JWRN_NOT_SEQUENTIAL || code == JWRN_BOGUS_PROGRESSION)) {
        error->corrupt_data_code = code;
        (*cinfo->err->format_message)(cinfo, error->corrupt_data_message);
    }
    cinfo->err->num_warnings++;
}

static inline void usd_jpeg_output_message(j_common_ptr cinfo) { (void)cinfo; }

static inline void usd_jpeg_init_error(usd_jpeg_error *error, usd_jpeg_status *status) {
    jpeg_std_error(&error->base);
    error->base.error_exit = usd_jpeg_error_exit;
    error->base.emit_message = usd_jpeg_emit_message;
    error->base.output_message = usd_jpeg_output_message;
    error->status = status;
    error->saw_end_of_data = 0;
    error->corrupt_data_code = 0;
    error->corrupt_data_message[0] = '\0';
    status->code = USD_JPEG_OK;
    status->message[0] = '\0';
}

/// Stops a progressive decode that goes on for more than USD_JPEG_MAX_SCANS scans.
static inline void usd_jpeg_progress(j_common_ptr cinfo) {
    if (cinfo->is_decompressor) {
        j_decompress_ptr dinfo = (j_decompress_ptr)cinfo;
        if (dinfo->input_scan_number > USD_JPEG_MAX_SCANS) {
            usd_jpeg_error *error = (usd_jpeg_error *)cinfo->err;
            snprintf(error->status->message, sizeof error->status->message,
                     "more than %d progressive scans", USD_JPEG_MAX_SCANS);
            error->status->code = USD_JPEG_ERROR;
            longjmp(error->jump, 2);
        }
    }
}

/// Reads the frame header: size, components, progressive or not. Allocates nothing for pixels.
static inline int usd_jpeg_read_header(const uint8_t *data, size_t size, usd_jpeg_header *header,
                                       usd_jpeg_status *status) {
    struct jpeg_decompress_struct cinfo;
    usd_jpeg_error error;
    usd_jpeg_init_error(&error, status);
    cinfo.err = &error.base;
    if (setjmp(error.jump)) {
        jpeg_destroy_decompress(&cinfo);
        return status->code;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, (unsigned long)size);
    jpeg_read_header(&cinfo, TRUE);
    header->width = cinfo.image_width;
    header->height = cinfo.image_height;
    header->components = cinfo.num_components;
    header->progressive = cinfo.progressive_mode ? 1 : 0;
    header->color_space = (int)cinfo.jpeg_color_space;
    jpeg_destroy_decompress(&cinfo);
    return USD_JPEG_OK;
}

/// Decodes a whole JPEG (baseline or progressive; grey, YCbCr, RGB, CMYK or YCCK) into `out`,
/// which must hold exactly width * height * 4 bytes (RGBA, alpha 255; with `native_argb`, ARGB
/// words in the machine's byte order) for the size the header gave. `fast_dct` chooses
/// JDCT_IFAST over JDCT_ISLOW. Returns a USD_JPEG_* code.
static inline int usd_jpeg_decode_rgba(const uint8_t *data, size_t size, uint8_t *out, size_t out_size,
                                       int fast_dct, int native_argb, usd_jpeg_status *status) {
    struct jpeg_decompress_struct cinfo;
    struct jpeg_progress_mgr progress;
    usd_jpeg_error error;
    uint8_t *volatile cmyk_row = NULL;
    usd_jpeg_init_error(&error, status);
    cinfo.err = &error.base;
    if (setjmp(error.jump)) {
        free(cmyk_row);
        jpeg_destroy_decompress(&cinfo);
        return status->code;
    }
    jpeg_create_decompress(&cinfo);
    progress.progress_monitor = usd_jpeg_progress;
    cinfo.progress = &progress;
    jpeg_mem_src(&cinfo, data, (unsigned long)size);
    jpeg_read_header(&cinfo, TRUE);
    if ((size_t)cinfo.image_width * cinfo.image_height * 4 != out_size) {
        usd_jpeg_set(status, USD_JPEG_ERROR, "image size differs from the header read before");
        jpeg_destroy_decompress(&cinfo);
        return status->code;
    }
    int cmyk = cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK;
    if (cmyk) {
        cinfo.out_color_space = JCS_CMYK;
    } else if (cinfo.num_components == 1 || cinfo.num_components == 3) {
        // Grey and colour alike, alpha filled with 255.
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        cinfo.out_color_space = native_argb ? JCS_EXT_ARGB : JCS_EXT_RGBA;
#else
        cinfo.out_color_space = native_argb ? JCS_EXT_BGRA : JCS_EXT_RGBA;
#endif
    } else {
        snprintf(status->message, sizeof status->message,
                 "a JPEG with %d components cannot be turned into RGB", cinfo.num_components);
        status->code = USD_JPEG_UNSUPPORTED;
        jpeg_destroy_decompress(&cinfo);
        return status->code;
    }
    cinfo.dct_method = fast_dct ? JDCT_IFAST : JDCT_ISLOW;
    jpeg_start_decompress(&cinfo);
    size_t stride = (size_t)cinfo.output_width * 4;
    if (cmyk) {
        cmyk_row = (uint8_t *)malloc(stride);
        if (cmyk_row == NULL) {
            usd_jpeg_set(status, USD_JPEG_NO_MEMORY, "out of memory for a CMYK row");
            jpeg_destroy_decompress(&cinfo);
            return status->code;
        }
    }
    // Adobe writes CMYK inverted (0 is full ink); libjpeg hands the values back as stored.
    int inverted = cinfo.saw_Adobe_marker;
    int ri = 0, gi = 1, bi = 2, ai = 3;
    if (native_argb) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        ai = 0; ri = 1; gi = 2; bi = 3;
#else
        bi = 0; ri = 2;
#endif
    }
    while (cinfo.output_scanline < cinfo.output_height) {
        uint8_t *row = out + (size_t)cinfo.output_scanline * stride;
        JSAMPROW rows[1] = { cmyk ? cmyk_row : row };
        jpeg_read_scanlines(&cinfo, rows, 1);
        if (cmyk) {
            for (size_t x = 0; x < cinfo.output_width; x++) {
                unsigned c = cmyk_row[x * 4], m = cmyk_row[x * 4 + 1], y = cmyk_row[x * 4 + 2], k = cmyk_row[x * 4 + 3];
                if (!inverted) { c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k; }
                row[x * 4 + ri] = (uint8_t)((c * k + 127) / 255);
                row[x * 4 + gi] = (uint8_t)((m * k + 127) / 255);
                row[x * 4 + bi] = (uint8_t)((y * k + 127) / 255);
                row[x * 4 + ai] = 255;
            }
        }
    }
    jpeg_finish_decompress(&cinfo);
    free(cmyk_row);
    cmyk_row = NULL;
    int code = USD_JPEG_OK;
    if (error.saw_end_of_data) {
        usd_jpeg_set(status, USD_JPEG_TRUNCATED, "Premature end of JPEG file");
        code = USD_JPEG_TRUNCATED;
    } else if (error.corrupt_data_code != 0) {
        usd_jpeg_set(status, USD_JPEG_ERROR, error.corrupt_data_message);
        code = USD_JPEG_ERROR;
    }
    jpeg_destroy_decompress(&cinfo);
    return code;
}

/// A growing output buffer: libjpeg-turbo's jpeg_mem_dest leaks its buffer when compression
/// fails half-way, so the buffer is ours to free.
typedef struct {
    struct jpeg_destination_mgr base;  // first, so cinfo->dest can be cast to this
    uint8_t *data;
    size_t capacity;
} usd_jpeg_destination;

static inline void usd_jpeg_dest_init(j_compress_ptr cinfo) {
    usd_jpeg_destination *dest = (usd_jpeg_destination *)cinfo->dest;
    dest->base.next_output_byte = dest->data;
    dest->base.free_in_buffer = dest->capacity;
}

/// Called when the buffer is full: doubles it. (libjpeg's contract: the whole buffer was filled.)
static inline boolean usd_jpeg_dest_grow(j_compress_ptr cinfo) {
    usd_jpeg_destination *dest = (usd_jpeg_destination *)cinfo->dest;
    size_t used = dest->capacity;
    size_t capacity = dest->capacity * 2;
    uint8_t *grown = (uint8_t *)realloc(dest->data, capacity);
    if (grown == NULL) ERREXIT(cinfo, JERR_OUT_OF_MEMORY);
    dest->data = grown;
    dest->capacity = capacity;
    dest->base.next_output_byte = grown + used;
    dest->base.free_in_buffer = capacity - used;
    return TRUE;
}

static inline void usd_jpeg_dest_term(j_compress_ptr cinfo) { (void)cinfo; }

/// Encodes 8-bit RGBA pixels as a JPEG at `quality` (1...100), baseline or progressive, 4:2:0,
/// `fast_dct` choosing JDCT_IFAST over JDCT_ISLOW. Rows with any alpha below 255 are composited
/// over white (JPEG has no alpha). `size_hint`: the initial output capacity in bytes.
/// On success `*output` is a malloc'd buffer the caller frees with usd_jpeg_free.
static inline int usd_jpeg_encode_rgba(const uint8_t *rgba, uint32_t width, uint32_t height,
                                       int quality, int progressive, int fast_dct, size_t size_hint,
                                       uint8_t **output, size_t *output_size, usd_jpeg_status *status) {
    struct jpeg_compress_struct cinfo;
    usd_jpeg_error error;
    usd_jpeg_destination dest;
    *output = NULL;
    *output_size = 0;
    // volatile: changed after setjmp and read after a longjmp.
    uint8_t *volatile flattened = NULL;
    usd_jpeg_destination *volatile dest_ptr = &dest;
    dest.capacity = size_hint < 4096 ? 4096 : size_hint;
    dest.data = (uint8_t *)malloc(dest.capacity);
    if (dest.data == NULL) {
        usd_jpeg_set(status, USD_JPEG_NO_MEMORY, "out of memory for the JPEG output");
        return status->code;
    }
    usd_jpeg_init_error(&error, status);
    cinfo.err = &error.base;
    if (setjmp(error.jump)) {
        free(flattened);
        free(dest_ptr->data);
        jpeg_destroy_compress(&cinfo);
        return status->code;
    }
    jpeg_create_compress(&cinfo);
    dest.base.init_destination = usd_jpeg_dest_init;
    dest.base.empty_output_buffer = usd_jpeg_dest_grow;
    dest.base.term_destination = usd_jpeg_dest_term;
    cinfo.dest = &dest.base;
    cinfo.image_width = width;
    cinfo.image_height = height;
    cinfo.input_components = 4;
    cinfo.in_color_space = JCS_EXT_RGBX;  // the fourth byte is skipped
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality, TRUE);
    cinfo.dct_method = fast_dct ? JDCT_IFAST : JDCT_ISLOW;
    if (progressive) jpeg_simple_progression(&cinfo);
    jpeg_start_compress(&cinfo, TRUE);
    size_t stride = (size_t)width * 4;
    while (cinfo.next_scanline < cinfo.image_height) {
        const uint8_t *row = rgba + (size_t)cinfo.next_scanline * stride;
        int opaque = 1;
        for (size_t x = 3; x < stride; x += 4) {
            if (row[x] != 255) { opaque = 0; break; }
        }
        if (!opaque) {
            if (flattened == NULL) {
                flattened = (uint8_t *)malloc(stride);
                if (flattened == NULL) ERREXIT(&cinfo, JERR_OUT_OF_MEMORY);
            }
            for (size_t i = 0; i < stride; i += 4) {
                unsigned a = row[i + 3];
                for (size_t c = 0; c < 3; c++)
                    flattened[i + c] = (uint8_t)((row[i + c] * a + 255 * (255 - a) + 127) / 255);
            }
            row = flattened;
        }
        JSAMPROW rows[1] = { (JSAMPROW)row };
        jpeg_write_scanlines(&cinfo, rows, 1);
    }
    jpeg_finish_compress(&cinfo);
    free(flattened);
    *output = dest.data;
    *output_size = dest.capacity - dest.base.free_in_buffer;
    jpeg_destroy_compress(&cinfo);
    return USD_JPEG_OK;
}

/// The colour a hazard JPEG is stored in: what `jpeg_color_space` becomes.
enum {
    USD_JPEG_STORE_YCBCR = 0,  // from RGBX input, as every camera writes
    USD_JPEG_STORE_CMYK = 1,   // from CMYK input (inverted as Adobe writes it), Adobe APP14 transform 0
    USD_JPEG_STORE_YCCK = 2,   // from CMYK input, Adobe APP14 transform 2
};

/// Encodes a baseline JPEG for the image hazards: `pixels` is RGBX (store YCbCr) or CMYK (store
/// CMYK or YCCK; libjpeg writes the Adobe APP14 marker itself for these, and the values are stored
/// as given, so the caller passes them inverted as Photoshop does). `markers` holds
/// `marker_count` entries laid out as [marker code (1 byte), length (2 bytes, big-endian),
/// payload], each written with jpeg_write_marker right after the SOI (and JFIF/Adobe) markers,
/// so an EXIF APP1 or an ICC APP2 lands where cameras put it. Chroma is not subsampled (4:4:4),
/// so flat colours come back within a few levels. On success `*output` is a malloc'd buffer the
/// caller frees with usd_jpeg_free.
static inline int usd_jpeg_encode_hazard(const uint8_t *pixels, uint32_t width, uint32_t height,
                                         int store, int quality, int write_jfif,
                                         const uint8_t *markers, size_t markers_size,
                                         uint8_t **output, size_t *output_size, usd_jpeg_status *status) {
    struct jpeg_compress_struct cinfo;
    usd_jpeg_error error;
    usd_jpeg_destination dest;
    *output = NULL;
    *output_size = 0;
    usd_jpeg_destination *volatile dest_ptr = &dest;
    dest.capacity = (size_t)width * height + markers_size + 4096;
    dest.data = (uint8_t *)malloc(dest.capacity);
    if (dest.data == NULL) {
        usd_jpeg_set(status, USD_JPEG_NO_MEMORY, "out of memory for the JPEG output");
        return status->code;
    }
    usd_jpeg_init_error(&error, status);
    cinfo.err = &error.base;
    if (setjmp(error.jump)) {
        free(dest_ptr->data);
        jpeg_destroy_compress(&cinfo);
        return status->code;
    }
    jpeg_create_compress(&cinfo);
    dest.base.init_destination = usd_jpeg_dest_init;
    dest.base.empty_output_buffer = usd_jpeg_dest_grow;
    dest.base.term_destination = usd_jpeg_dest_term;
    cinfo.dest = &dest.base;
    cinfo.image_width = width;
    cinfo.image_height = height;
    cinfo.input_components = 4;
    cinfo.in_color_space = store == USD_JPEG_STORE_YCBCR ? JCS_EXT_RGBX : JCS_CMYK;
    jpeg_set_defaults(&cinfo);
    if (store == USD_JPEG_STORE_CMYK) jpeg_set_colorspace(&cinfo, JCS_CMYK);
    if (store == USD_JPEG_STORE_YCCK) jpeg_set_colorspace(&cinfo, JCS_YCCK);
    jpeg_set_quality(&cinfo, quality, TRUE);
    for (int i = 0; i < cinfo.num_components; i++) {
        cinfo.comp_info[i].h_samp_factor = 1;
        cinfo.comp_info[i].v_samp_factor = 1;
    }
    cinfo.write_JFIF_header = write_jfif ? TRUE : FALSE;
    cinfo.dct_method = JDCT_ISLOW;
    jpeg_start_compress(&cinfo, TRUE);
    size_t offset = 0;
    while (offset + 3 <= markers_size) {
        int code = markers[offset];
        size_t length = ((size_t)markers[offset + 1] << 8) | markers[offset + 2];
        if (offset + 3 + length > markers_size) {
            usd_jpeg_set(status, USD_JPEG_ERROR, "a marker's length runs past the marker list");
            free(dest_ptr->data);
            jpeg_destroy_compress(&cinfo);
            return status->code;
        }
        jpeg_write_marker(&cinfo, code, markers + offset + 3, (unsigned int)length);
        offset += 3 + length;
    }
    size_t stride = (size_t)width * 4;
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW rows[1] = { (JSAMPROW)(pixels + (size_t)cinfo.next_scanline * stride) };
        jpeg_write_scanlines(&cinfo, rows, 1);
    }
    jpeg_finish_compress(&cinfo);
    *output = dest.data;
    *output_size = dest.capacity - dest.base.free_in_buffer;
    jpeg_destroy_compress(&cinfo);
    return USD_JPEG_OK;
}

static inline void usd_jpeg_free(uint8_t *buffer) { free(buffer); }

#endif
