/* A strace-parity sweep over the GPIO character device ioctls (linux/gpio.h) tracekit
 * decodes: the line info, watch and event requests, the handle values and config, the
 * v2 line info, values and config (with attributes of each id, padding in use and not),
 * their structs zeroed, filled with patterns, at the end of a mapping, one byte short of
 * it (but the v2 config: tracekit reads 256 of its 272 bytes), past it and NULL.
 *
 * Every call is harmless: made on fd -1 (EBADF) and on /dev/null (ENOTTY) only.
 *
 * tests/e2e/test_strace_sweep_gpio.py runs it under strace -f and tracekit at once, with
 * and without -v: every line must be equal.
 * Build: gcc -O1 -Wall -Werror -o sweep_gpio sweep_gpio.c. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/gpio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static long io(long fd, unsigned long req, unsigned long arg)
{
	return syscall(SYS_ioctl, fd, req, arg);
}

static void fill(void *p, unsigned int n, unsigned char seed)
{
	for (unsigned int i = 0; i < n; i++)
		((unsigned char *) p)[i] = (unsigned char) (seed + i * 13);
}

int main(void)
{
	long page = sysconf(_SC_PAGESIZE);
	char *map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED)
		return 1;
	munmap(map + page, page);
	char *end = map + page;			/* the first unmapped byte */
	int null = open("/dev/null", O_RDONLY);
	int fds[] = { -1, null };

	static const struct { unsigned int req, size; int short_ok; } reqs[] = {
		{ GPIO_GET_CHIPINFO_IOCTL, sizeof(struct gpiochip_info), 1 },
		{ GPIO_GET_LINEINFO_IOCTL, sizeof(struct gpioline_info), 1 },
		{ GPIO_GET_LINEINFO_WATCH_IOCTL, sizeof(struct gpioline_info), 1 },
		{ GPIO_GET_LINEINFO_UNWATCH_IOCTL, sizeof(__u32), 1 },
		{ GPIO_GET_LINEEVENT_IOCTL, sizeof(struct gpioevent_request), 1 },
		{ GPIOHANDLE_GET_LINE_VALUES_IOCTL, sizeof(struct gpiohandle_data), 1 },
		{ GPIOHANDLE_SET_LINE_VALUES_IOCTL, sizeof(struct gpiohandle_data), 1 },
		{ GPIOHANDLE_SET_CONFIG_IOCTL, sizeof(struct gpiohandle_config), 1 },
		{ GPIO_V2_GET_LINEINFO_IOCTL, sizeof(struct gpio_v2_line_info), 1 },
		{ GPIO_V2_GET_LINEINFO_WATCH_IOCTL, sizeof(struct gpio_v2_line_info), 1 },
		{ GPIO_V2_LINE_GET_VALUES_IOCTL, sizeof(struct gpio_v2_line_values), 1 },
		{ GPIO_V2_LINE_SET_VALUES_IOCTL, sizeof(struct gpio_v2_line_values), 1 },
		{ GPIO_V2_LINE_SET_CONFIG_IOCTL, sizeof(struct gpio_v2_line_config), 0 },
	};
	for (unsigned int f = 0; f < 2; f++)
		for (unsigned int r = 0; r < sizeof(reqs) / sizeof(*reqs); r++) {
			char *p = end - reqs[r].size;
			io(fds[f], reqs[r].req, 0);
			memset(p, 0, reqs[r].size);
			io(fds[f], reqs[r].req, (unsigned long) p);
			fill(p, reqs[r].size, (unsigned char) r);
			if (reqs[r].req == GPIO_V2_LINE_SET_CONFIG_IOCTL)
				((struct gpio_v2_line_config *) p)->num_attrs = 3;
			io(fds[f], reqs[r].req, (unsigned long) p);
			if (reqs[r].short_ok)
				io(fds[f], reqs[r].req, (unsigned long) p + 1);
			io(fds[f], reqs[r].req, (unsigned long) end);
		}

	/* named strings, flags of each kind */
	struct gpioevent_request *er = (struct gpioevent_request *) (end - sizeof(*er));
	for (unsigned int k = 0; k < 4; k++) {
		memset(er, 0, sizeof(*er));
		er->lineoffset = k;
		er->handleflags = k ? 1U << (k * 3) : 0xff00;
		er->eventflags = k;
		memset(er->consumer_label, 'a' + k, k < 3 ? 8 * k : sizeof(er->consumer_label));
		io(-1, GPIO_GET_LINEEVENT_IOCTL, (unsigned long) er);
	}
	struct gpiohandle_config *hc = (struct gpiohandle_config *) (end - sizeof(*hc));
	for (unsigned int k = 0; k < 3; k++) {
		fill(hc, sizeof(*hc), (unsigned char) k);
		hc->flags = k == 2 ? 0x8000 : 0x14;
		io(-1, GPIOHANDLE_SET_CONFIG_IOCTL, (unsigned long) hc);
	}

	/* v2 config: attributes of each id, padding in use, up to 9 of them */
	struct gpio_v2_line_config *lc = (struct gpio_v2_line_config *) (end - sizeof(*lc));
	for (unsigned int n = 0; n < 10; n++) {
		memset(lc, 0, sizeof(*lc));
		lc->flags = n == 0 ? 0x8000 : 0x102;
		lc->num_attrs = n;
		if (n == 5)
			lc->padding[1] = 0xfeedface;
		for (unsigned int a = 0; a < n; a++) {
			lc->attrs[a].attr.id = a % 5;
			lc->attrs[a].attr.padding = a == 4 ? 0xfeedface : 0;
			lc->attrs[a].attr.values = 0xdeadbeef00000000ULL | a;
			lc->attrs[a].mask = 1ULL << a;
		}
		io(-1, GPIO_V2_LINE_SET_CONFIG_IOCTL, (unsigned long) lc);
	}
	return 0;
}
