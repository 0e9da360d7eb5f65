#ifndef HANDSFREE_CUINPUT_H
#define HANDSFREE_CUINPUT_H

#include <stddef.h>
#include <stdint.h>

/* A virtual input device made through /dev/uinput, and the encoding of the events written to it. The
   encoder is pure, so the bytes can be checked without the device (this machine may have none). */

/* One input event as the sink asks for it; the kernel stamps the time. */
typedef struct {
    uint16_t type;
    uint16_t code;
    int32_t value;
} hf_ui_event;

/* The layout of the kernel's struct input_event, from <linux/input.h>, for tests and decoders. */
size_t hf_ui_event_size(void);
size_t hf_ui_offset_time(void);
size_t hf_ui_offset_type(void);
size_t hf_ui_offset_code(void);
size_t hf_ui_offset_value(void);

/* The codes the sink and its tests share (linux/input-event-codes.h). */
enum {
    HF_EV_SYN = 0x00, HF_EV_KEY = 0x01, HF_EV_REL = 0x02, HF_EV_ABS = 0x03,
    HF_SYN_REPORT = 0,
    HF_REL_X = 0x00, HF_REL_Y = 0x01, HF_REL_HWHEEL = 0x06, HF_REL_WHEEL = 0x08,
    HF_ABS_X = 0x00, HF_ABS_Y = 0x01,
    HF_BTN_LEFT = 0x110, HF_BTN_RIGHT = 0x111, HF_BTN_MIDDLE = 0x112,
    HF_ABS_MAX = 65535,
};

/* Writes `count` events as struct input_event records, then a SYN_REPORT, into `out`. Returns the bytes
   written, or 0 when `capacity` is too small ((count + 1) * hf_ui_event_size() is enough). */
size_t hf_ui_encode(const hf_ui_event *events, size_t count, uint8_t *out, size_t capacity);

/* What a device is made to send. */
enum {
    HF_UI_KEYBOARD = 1,  /* every key code 1…255, as a keyboard has */
    HF_UI_RELATIVE = 2,  /* REL_X, REL_Y, the wheels and the three buttons: a mouse */
    HF_UI_ABSOLUTE = 4,  /* ABS_X, ABS_Y in 0…HF_ABS_MAX and the three buttons: a tablet-like pointer */
};

/* Opens `path` (normally /dev/uinput) and creates a device named `name` with the capabilities in `kinds`.
   Uses UI_DEV_SETUP and UI_ABS_SETUP, or struct uinput_user_dev on kernels before 4.5. Returns the
   descriptor (close-on-exec), or -1 with the errno value in *error. */
int hf_ui_create(const char *path, const char *name, int kinds, int *error);

/* Encodes and writes the events and a SYN_REPORT, retrying after EINTR. 0, or an errno value. */
int hf_ui_write(int fd, const hf_ui_event *events, size_t count);

/* The device's name under /sys/devices/virtual/input (UI_GET_SYSNAME: "input17"). 0, or an errno value. */
int hf_ui_sysname(int fd, char *buffer, size_t size);

/* UI_DEV_DESTROY and close. */
void hf_ui_destroy(int fd);

#endif
