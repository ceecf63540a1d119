/* A strace-parity sweep over the input event device ioctls (linux/input.h, type 'E'):
 * the requests with a number or a length in them (EVIOCGBIT of every event type,
 * EVIOCGABS/EVIOCSABS of every axis, EVIOCGNAME(len)...), the fixed ones, their value
 * arguments, the structs the write requests read (struct input_absinfo,
 * input_keymap_entry, ff_effect of every effect type, the key code pairs) filled with
 * patterns, at the end of a mapping and one byte short of it (the next page unmapped),
 * NULL, and requests of type 'E' that are none of these.
 *
 * Every call is harmless: made on fd -1 (EBADF) and on /dev/null (ENOTTY) only.
 *
 * tests/e2e/test_strace_sweep_evdev.py runs it under strace -f and tracekit at once,
 * with and without -v: every line must be equal.
 * Build: gcc -O1 -Wall -Werror -o sweep_evdev sweep_evdev.c. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/input.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static long ev(long fd, unsigned long req, unsigned long arg)
{
	return syscall(SYS_ioctl, fd, req, arg);
}

static void fill(char *p, unsigned int n, unsigned char seed)
{
	for (unsigned int i = 0; i < n; i++)
		p[i] = (char) (seed + i * 7);
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

	/* the fixed requests, reads and writes, on NULL and on a readable buffer */
	static const unsigned int fixed[] = {
		EVIOCGVERSION, EVIOCGID, EVIOCGREP, EVIOCSREP, EVIOCGKEYCODE,
		EVIOCGKEYCODE_V2, EVIOCSKEYCODE, EVIOCSKEYCODE_V2, EVIOCSFF,
		EVIOCGEFFECTS, EVIOCGMASK, EVIOCSMASK, EVIOCSCLOCKID,
	};
	fill(end - 64, 64, 0x80);
	for (unsigned int f = 0; f < 2; f++)
		for (unsigned int r = 0; r < sizeof(fixed) / sizeof(*fixed); r++) {
			ev(fds[f], fixed[r], 0);
			ev(fds[f], fixed[r], (unsigned long) (end - 64));
			/* one byte short of the struct */
			ev(fds[f], fixed[r], (unsigned long) (end - _IOC_SIZE(fixed[r]) + 1));
		}

	/* value arguments */
	static const unsigned long values[] = {
		0, 1, 0x7fffffff, 0x80000000, 0xdeadbeefbadc0dedUL, -1UL,
	};
	for (unsigned int v = 0; v < sizeof(values) / sizeof(*values); v++) {
		ev(-1, EVIOCRMFF, values[v]);
		ev(-1, EVIOCGRAB, values[v]);
		ev(-1, EVIOCREVOKE, values[v]);
	}

	/* the key code pairs: known keys, buttons and one without a name */
	unsigned int *pair = (unsigned int *) (end - 8);
	static const unsigned int keys[] = { 0, 1, 2, 28, 0x100, 0x110, 0x2ff, 0x300, -1U };
	for (unsigned int k = 0; k < sizeof(keys) / sizeof(*keys); k++) {
		pair[0] = 0xdeadbeef - k;
		pair[1] = keys[k];
		ev(-1, EVIOCSKEYCODE, (unsigned long) pair);
		ev(-1, EVIOCSREP, (unsigned long) pair);
		ev(-1, EVIOCSCLOCKID, (unsigned long) (pair + 1));
	}
	struct input_keymap_entry *ike = (struct input_keymap_entry *) (end - sizeof(*ike));
	for (unsigned int k = 0; k < sizeof(keys) / sizeof(*keys); k++) {
		fill((char *) ike, sizeof(*ike), (unsigned char) (k * 16));
		ike->keycode = keys[k];
		ev(-1, EVIOCSKEYCODE_V2, (unsigned long) ike);
	}

	/* struct ff_effect of every type, known or not */
	struct ff_effect *ffe = (struct ff_effect *) (end - sizeof(*ffe));
	for (unsigned int t = 0x4f; t <= 0x62; t++) {
		fill((char *) ffe, sizeof(*ffe), (unsigned char) t);
		ffe->type = (unsigned short) t;
		ev(-1, EVIOCSFF, (unsigned long) ffe);
	}
	ffe->type = 0xffff;
	ev(-1, EVIOCSFF, (unsigned long) ffe);

	/* EVIOCGABS/EVIOCSABS of every axis, with struct input_absinfo, of its size and
	 * of other sizes (20 bytes: without resolution; 28: longer) */
	struct input_absinfo *abs = (struct input_absinfo *) (end - sizeof(*abs));
	for (unsigned int a = 0; a <= ABS_MAX; a++) {
		fill((char *) abs, sizeof(*abs), (unsigned char) (a * 3));
		if (a % 8 == 0)
			abs->value = -1;
		ev(-1, EVIOCSABS(a), (unsigned long) abs);
		ev(null, EVIOCGABS(a), (unsigned long) abs);
	}
	ev(-1, _IOC(_IOC_WRITE, 'E', 0xc0, 20), (unsigned long) abs);
	ev(-1, _IOC(_IOC_WRITE, 'E', 0xc1, 16), (unsigned long) abs);
	ev(-1, _IOC(_IOC_WRITE, 'E', 0xc2, 28), (unsigned long) abs);
	ev(-1, EVIOCSABS(3), (unsigned long) abs + 1);
	ev(-1, EVIOCSABS(3), 0);

	/* EVIOCGBIT of every event type, the sized reads, of a few lengths */
	static const unsigned int lens[] = { 0, 1, 8, 255, 0x3fff };
	for (unsigned int l = 0; l < sizeof(lens) / sizeof(*lens); l++) {
		for (unsigned int t = 0; t <= EV_MAX; t++)
			ev(-1, EVIOCGBIT(t, lens[l]), (unsigned long) (end - 8));
		ev(-1, EVIOCGNAME(lens[l]), 0);
		ev(-1, EVIOCGPHYS(lens[l]), (unsigned long) (end - 8));
		ev(-1, EVIOCGUNIQ(lens[l]), 0);
		ev(-1, EVIOCGPROP(lens[l]), 0);
		ev(-1, EVIOCGMTSLOTS(lens[l]), (unsigned long) (end - 8));
		ev(-1, EVIOCGKEY(lens[l]), 0);
		ev(-1, EVIOCGLED(lens[l]), 0);
		ev(-1, EVIOCGSND(lens[l]), 0);
		ev(null, EVIOCGSW(lens[l]), 0);
	}

	/* type 'E' requests that are none of the above: other numbers, sizes, directions */
	static const unsigned int others[] = {
		_IOC(_IOC_READ, 'E', 0x01, 0xff), _IOC(_IOC_WRITE, 'E', 0x01, 0xff),
		_IOC(_IOC_READ | _IOC_WRITE, 'E', 0xfe, 0xff), _IOC(_IOC_NONE, 'E', 0x20, 0),
		_IOC(_IOC_READ | _IOC_WRITE, 'E', 0x40, 24), _IOC(_IOC_READ, 'E', 0x80, 0x30),
		_IOC(_IOC_WRITE, 'E', 0x20, 8), _IOC(_IOC_WRITE, 'E', 0x81, 8),
		_IOC(_IOC_READ, 'E', 0xc0, 24), _IOC(_IOC_READ, 'E', 0x0c, 4),
	};
	for (unsigned int r = 0; r < sizeof(others) / sizeof(*others); r++) {
		ev(-1, others[r], 0);
		ev(-1, others[r], 0xdeadbeefbadc0dedUL);
	}
	return 0;
}
