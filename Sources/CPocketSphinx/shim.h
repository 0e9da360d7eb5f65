#include <pocketsphinx.h>
#include <sphinxbase/err.h>
#include <sphinxbase/cmd_ln.h>
/* The live cepstral mean (cmn_live_get/set) lives on the decoder's feature computation. */
#include <sphinxbase/feat.h>
