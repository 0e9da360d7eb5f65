#include <flite/flite.h>

/// The slt voice (US English, female, 16 kHz), compiled into libflite_cmu_us_slt; Debian ships no header for it.
cst_voice *register_cmu_us_slt(const char *voxdir);

/// The samples of a wave flite made (a macro-free accessor: cst_wave's fields are plain, but keeping the
/// layout in C spares Swift from it).
static inline const short *handsfree_flite_samples(const cst_wave *w) { return w->samples; }
static inline int handsfree_flite_sample_count(const cst_wave *w) { return w->num_samples; }
static inline int handsfree_flite_sample_rate(const cst_wave *w) { return w->sample_rate; }

/// Sets how much longer than normal the voice speaks (0.5 is twice as fast).
/// flite keeps the feature's *name pointer* rather than a copy, so the name must outlive the voice: a C
/// literal does, while a Swift string passed as `const char *` is a temporary buffer freed after the call,
/// after which flite's lookup reads freed memory and may fall back to the normal rate.
static inline void handsfree_flite_set_duration_stretch(cst_voice *v, float stretch) {
    flite_feat_set_float(v->features, "duration_stretch", stretch);
}

/// The duration stretch the voice will use, read back by the same name flite looks up while synthesising.
static inline float handsfree_flite_duration_stretch(const cst_voice *v) {
    return flite_get_param_float(v->features, "duration_stretch", 1.0f);
}
