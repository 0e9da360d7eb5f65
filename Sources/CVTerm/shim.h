#include <vterm.h>

/* The VTERM_COLOR_IS_* tests are macros, which Swift cannot import. */
static inline int handsfree_vterm_color_is_indexed(const VTermColor *c) { return VTERM_COLOR_IS_INDEXED(c); }
static inline int handsfree_vterm_color_is_rgb(const VTermColor *c) { return VTERM_COLOR_IS_RGB(c); }
static inline int handsfree_vterm_color_is_default_fg(const VTermColor *c) { return VTERM_COLOR_IS_DEFAULT_FG(c); }
static inline int handsfree_vterm_color_is_default_bg(const VTermColor *c) { return VTERM_COLOR_IS_DEFAULT_BG(c); }
