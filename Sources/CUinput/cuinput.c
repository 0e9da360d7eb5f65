#include "cuinput.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/input.h>
#include <linux/uinput.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

size_t hf_ui_event_size(void) { return sizeof(struct input_event); }
size_t hf_ui_offset_time(void) { return offsetof(struct input_event, time); }
size_t hf_ui_offset_type(void) { return offsetof(struct input_event, type); }
size_t hf_ui_offset_code(void) { return offsetof(struct input_event, code); }
size_t hf_ui_offset_value(void) { return offsetof(struct input_event, value); }

size_t hf_ui_encode(const hf_ui_event *events, size_t count, uint8_t *out, size_t capacity) {
    size_t size = sizeof(struct input_event);
    if (count >= SIZE_MAX / size - 1 || capacity < (count + 1) * size) return 0;
    for (size_t i = 0; i <= count; i++) {
        struct input_event record;
        /* A zero time: uinput stamps each event as it is written. */
        memset(&record, 0, sizeof record);
        if (i < count) {
            record.type = events[i].type;
            record.code = events[i].code;
            record.value = events[i].value;
        } else {
            record.type = EV_SYN;
            record.code = SYN_REPORT;
        }
        memcpy(out + i * size, &record, size);
    }
    return (count + 1) * size;
}

static int set_bit(int fd, unsigned long request, int bit) {
    return ioctl(fd, request, bit) < 0 ? -1 : 0;
}

static int enable(int fd, int kinds) {
    if (kinds & HF_UI_KEYBOARD) {
        if (set_bit(fd, UI_SET_EVBIT, EV_KEY) < 0) return -1;
        for (int key = 1; key < 256; key++) if (set_bit(fd, UI_SET_KEYBIT, key) < 0) return -1;
    }
    if (kinds & (HF_UI_RELATIVE | HF_UI_ABSOLUTE)) {
        if (set_bit(fd, UI_SET_EVBIT, EV_KEY) < 0) return -1;
        int buttons[] = { BTN_LEFT, BTN_RIGHT, BTN_MIDDLE };
        for (size_t i = 0; i < 3; i++) if (set_bit(fd, UI_SET_KEYBIT, buttons[i]) < 0) return -1;
    }
    if (kinds & HF_UI_RELATIVE) {
        if (set_bit(fd, UI_SET_EVBIT, EV_REL) < 0) return -1;
        int axes[] = { REL_X, REL_Y, REL_WHEEL, REL_HWHEEL };
        for (size_t i = 0; i < 4; i++) if (set_bit(fd, UI_SET_RELBIT, axes[i]) < 0) return -1;
    }
    if (kinds & HF_UI_ABSOLUTE) {
        /* No INPUT_PROP_DIRECT: absolute axes with a mouse button and no touch are taken as a mouse that
           reports positions (udev's input_id, the path of VMware's and QEMU's tablets). */
        if (set_bit(fd, UI_SET_EVBIT, EV_ABS) < 0) return -1;
        if (set_bit(fd, UI_SET_ABSBIT, ABS_X) < 0 || set_bit(fd, UI_SET_ABSBIT, ABS_Y) < 0) return -1;
    }
    return 0;
}

static void identify(struct input_id *id) {
    id->bustype = BUS_VIRTUAL;
    id->vendor = 0x1d6b; /* Linux Foundation, as other virtual devices use. */
    id->product = 0x4846; /* "HF" */
    id->version = 1;
}

static int setup(int fd, const char *name, int kinds) {
    struct uinput_setup dev;
    memset(&dev, 0, sizeof dev);
    identify(&dev.id);
    snprintf(dev.name, sizeof dev.name, "%s", name);
    if (ioctl(fd, UI_DEV_SETUP, &dev) == 0) {
        if (kinds & HF_UI_ABSOLUTE) {
            int axes[] = { ABS_X, ABS_Y };
            for (size_t i = 0; i < 2; i++) {
                struct uinput_abs_setup abs;
                memset(&abs, 0, sizeof abs);
                abs.code = (unsigned short)axes[i];
                abs.absinfo.minimum = 0;
                abs.absinfo.maximum = HF_ABS_MAX;
                if (ioctl(fd, UI_ABS_SETUP, &abs) < 0) return -1;
            }
        }
        return 0;
    }
    /* Kernels before 4.5 know neither request: the device is described by writing uinput_user_dev. */
    if (errno != EINVAL && errno != ENOTTY) return -1;
    struct uinput_user_dev old;
    memset(&old, 0, sizeof old);
    identify(&old.id);
    snprintf(old.name, sizeof old.name, "%s", name);
    if (kinds & HF_UI_ABSOLUTE) {
        old.absmax[ABS_X] = HF_ABS_MAX;
        old.absmax[ABS_Y] = HF_ABS_MAX;
    }
    ssize_t n;
    do n = write(fd, &old, sizeof old); while (n < 0 && errno == EINTR);
    if (n < 0) return -1;
    if ((size_t)n != sizeof old) { errno = EIO; return -1; }
    return 0;
}

int hf_ui_create(const char *path, const char *name, int kinds, int *error) {
    int fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) { *error = errno; return -1; }
    if (enable(fd, kinds) < 0 || setup(fd, name, kinds) < 0 || ioctl(fd, UI_DEV_CREATE) < 0) {
        *error = errno;
        close(fd);
        return -1;
    }
    return fd;
}

int hf_ui_write(int fd, const hf_ui_event *events, size_t count) {
    uint8_t buffer[64 * sizeof(struct input_event)];
    if (count + 1 > 64) return E2BIG;
    size_t size = hf_ui_encode(events, count, buffer, sizeof buffer);
    size_t done = 0;
    while (done < size) {
        ssize_t n = write(fd, buffer + done, size - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            return errno;
        }
        done += (size_t)n;
    }
    return 0;
}

int hf_ui_sysname(int fd, char *buffer, size_t size) {
    if (size == 0) return EINVAL;
    if (ioctl(fd, UI_GET_SYSNAME(size), buffer) < 0) return errno;
    buffer[size - 1] = 0;
    return 0;
}

void hf_ui_destroy(int fd) {
    ioctl(fd, UI_DEV_DESTROY);
    close(fd);
}
