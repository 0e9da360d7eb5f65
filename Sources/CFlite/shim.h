#include <flite/flite.h>

/// The slt voice (US English, female, 16 kHz), compiled into libflite_cmu_us_slt; Debian ships no header for it.
cst_voice *register_cmu_us_slt(const char *voxdir);

/// The samples of a wave flite made (a macro-free accessor: cst_wave's fields are plain, but keeping the
/// layout in C spares Swift from it).
static inline const short *handsfree_flite_samples(const cst_wave *w) { return w->samples; }
static inline int handsfree_flite_sample_count(const cst_wave *w) { return w->num_samples; }
static inline int handsfree_flite_sample_rate(const cst_wave *w) { return w->sample_rate; }
