/*
 * A streaming, scaling JPEG decoder for src/media/jpeg-decoder.ts: libjpeg-turbo's libjpeg API (no SIMD: there is
 * none for WebAssembly) behind a few exported functions. Rows come out a few at a time, so the heap holds the
 * compressed file and libjpeg's working rows, never the decoded image (progressive JPEGs: plus libjpeg's whole
 * coefficient buffer); and the IDCT can scale by M/8 (scale_num/scale_denom), decoding a 12 MP photo that will be
 * shrunk to 3 MP at 1/2 (as libvips' shrink-on-load does), which is 3-4x less work.
 *
 * Errors: libjpeg's error_exit calls the imported `env.jpeg_error(code)`, which throws a JavaScript exception that
 * unwinds through these frames (there is no setjmp/longjmp here). The instance is then discarded by the caller.
 * Warnings (corrupt data libjpeg can skip, a truncated file) are counted: see dec_warnings.
 *
 * Built by scripts/jpeg-decoder/build.sh; one decode at a time per instance (static state).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include "jpeglib.h"

#define EXPORT(name) __attribute__((export_name(#name)))

__attribute__((import_module("env"), import_name("jpeg_error"))) void js_jpeg_error(int code);

static struct jpeg_decompress_struct cinfo;
static struct jpeg_error_mgr jerr;
static int created = 0;
static unsigned char *input = NULL;
static unsigned char *rows = NULL;
static int rows_capacity = 0;

static void on_error(j_common_ptr c) { js_jpeg_error(c->err->msg_code); }
static void on_message(j_common_ptr c) { (void)c; }

/* Releases everything of the previous decode (safe to call at any time, also after an error). */
EXPORT(dec_reset) void dec_reset(void) {
  if (created) jpeg_destroy_decompress(&cinfo);
  created = 0;
  free(input);
  input = NULL;
  free(rows);
  rows = NULL;
  rows_capacity = 0;
}

/* Room for the compressed file: the caller copies it there, then calls dec_start. */
EXPORT(dec_input) unsigned char *dec_input(size_t length) {
  dec_reset();
  input = malloc(length ? length : 1);
  return input;
}

/* Reads the header of the `length` bytes at dec_input. Returns 0; errors throw. */
EXPORT(dec_header) int dec_header(size_t length) {
  cinfo.err = jpeg_std_error(&jerr);
  jerr.error_exit = on_error;
  jerr.output_message = on_message;
  jpeg_create_decompress(&cinfo);
  created = 1;
  jpeg_mem_src(&cinfo, input, (unsigned long)length);
  jpeg_read_header(&cinfo, TRUE);
  return 0;
}
EXPORT(dec_image_width) int dec_image_width(void) { return (int)cinfo.image_width; }
EXPORT(dec_image_height) int dec_image_height(void) { return (int)cinfo.image_height; }

/*
 * Starts decompressing to RGB (grey is expanded) at scale_num/8. Returns 0; errors throw. libjpeg refuses colour
 * spaces it cannot turn into RGB (CMYK, YCCK).
 */
EXPORT(dec_begin) int dec_begin(int scale_num) {
  cinfo.scale_num = (unsigned int)scale_num;
  cinfo.scale_denom = 8;
  cinfo.out_color_space = JCS_RGB;
  jpeg_start_decompress(&cinfo);
  return 0;
}

EXPORT(dec_width) int dec_width(void) { return (int)cinfo.output_width; }
EXPORT(dec_height) int dec_height(void) { return (int)cinfo.output_height; }
EXPORT(dec_components) int dec_components(void) { return cinfo.num_components; }
EXPORT(dec_warnings) int dec_warnings(void) { return (int)jerr.num_warnings; }

/* Decodes up to `count` more rows into a buffer of packed RGB; returns its address (the row count: dec_got). */
static int got = 0;
EXPORT(dec_read) unsigned char *dec_read(int count) {
  int stride = (int)cinfo.output_width * 3;
  if (count > rows_capacity) {
    free(rows);
    rows = malloc((size_t)stride * (size_t)count);
    if (!rows) return NULL;
    rows_capacity = count;
  }
  got = 0;
  while (got < count && cinfo.output_scanline < cinfo.output_height) {
    JSAMPROW row = rows + (size_t)got * (size_t)stride;
    got += (int)jpeg_read_scanlines(&cinfo, &row, 1);
  }
  return rows;
}
EXPORT(dec_got) int dec_got(void) { return got; }
