/* Capture: PNG screenshots (stb_image_write) and video through an ffmpeg
 * pipe (raw RGB frames on its stdin). */
#ifndef HEFT_VIEWER_CAPTURE_H
#define HEFT_VIEWER_CAPTURE_H

typedef struct recorder recorder;

/* The pixels of the current framebuffer, RGB, top row first (malloc'd). */
unsigned char *capture_pixels(int width, int height);
/* Writes the pixels as a PNG file; 0, or -1 with errno set and no file left. */
int capture_write_png(const char *path, const unsigned char *rgb, int width, int height);
/* 1 if an ffmpeg executable is on PATH */
int capture_have_ffmpeg(void);
/* NULL (and a message in err) if ffmpeg cannot be started */
recorder *recorder_open(const char *path, int width, int height, int fps, char *err,
                        unsigned long err_size);
int recorder_frame(recorder *r, const unsigned char *rgb, int width, int height);
/* Returns ffmpeg's exit status (0 when the file was written). */
int recorder_close(recorder *r);

#endif
