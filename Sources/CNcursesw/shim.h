#define _XOPEN_SOURCE_EXTENDED 1
#include <locale.h>
#include <ncursesw/curses.h>

static inline int handsfree_a_bold(void) { return A_BOLD; }
static inline int handsfree_a_reverse(void) { return A_REVERSE; }
static inline int handsfree_a_underline(void) { return A_UNDERLINE; }
static inline int handsfree_a_dim(void) { return A_DIM; }
static inline int handsfree_color_pair(int n) { return COLOR_PAIR(n); }
