#include <alsa/asoundlib.h>

static void handsfree_alsa_silent_handler(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}

/// Silences ALSA's variadic error handler, which Swift cannot call or implement.
static inline void handsfree_alsa_silence_errors(void) {
    snd_lib_error_set_handler(handsfree_alsa_silent_handler);
}
