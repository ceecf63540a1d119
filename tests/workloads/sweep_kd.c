/* A strace-parity sweep over the console ioctls (linux/kd.h): their value arguments
 * (KIOCSOUND's divisor, KDMKTONE's ticks and count, KDSETLED's lights, KDSETMODE's and
 * KDSKBMODE's modes, KDSIGACCEPT's signal...), the structs they read (struct kbentry,
 * kbkeycode, kbd_repeat, unimapinit; the screen map, font and colour map tables) and what
 * the get requests write, with known, unknown and garbage-high-half values, NULL and
 * pointers at the end of a mapping (the next page unmapped).
 *
 * Every call is harmless: the set requests are made on fd -1 (EBADF) and on /dev/null
 * (ENOTTY) only; the get requests also on /dev/tty0 when it opens (read only, not made
 * the controlling terminal), where they read the console's state and change nothing.
 *
 * tests/e2e/test_strace_sweep_kd.py runs it under strace -f and tracekit at once: every
 * line must be equal. Build: gcc -O1 -Wall -Werror -o sweep_kd sweep_kd.c. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/kd.h>
#include <linux/keyboard.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static long kd(long fd, unsigned long req, unsigned long arg)
{
	return syscall(SYS_ioctl, fd, req, arg);
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

	static const unsigned long values[] = {
		0, 1, 2, 3, 4, 5, 0x7, 0x10, 0x70, 0xfe, 440, 0xffff, 0x10000,
		0x10001, 0x1ffff, 0x3b3, 0x3b4, 0x3c0, 0x3df, 0x3e0, 1193182,
		1193183, 0xbadc0ded00010001UL, 0xbadc0dedfeedfaceUL, -1UL,
		32, 33, 128, 0x7ffffffe, 0x7fffffff,
	};
	static const unsigned int set_values[] = {
		KIOCSOUND, KDMKTONE, KDSETLED, KDSKBLED, KDADDIO, KDDELIO, KDSETMODE,
		KDSKBMODE, KDSKBMETA, KDSIGACCEPT,
	};
	for (unsigned int f = 0; f < 2; f++)
		for (unsigned int r = 0; r < sizeof(set_values) / sizeof(*set_values); r++)
			for (unsigned int v = 0; v < sizeof(values) / sizeof(*values); v++)
				kd(fds[f], set_values[r], values[v]);

	/* the structs read: filled to the end of the mapping, then one byte short */
	struct kbentry *ke = (struct kbentry *) (end - sizeof(*ke));
	static const unsigned short kb_values[] = {
		0, 0x41, 0x7f, 0x100, 0x1ff, 0x200, 0x213, 0x214, 0x300, 0x313, 0x400,
		0x41a, 0x41b, 0x500, 0x600, 0x603, 0x604, 0x700, 0x708, 0x709, 0x800,
		0x85c, 0x900, 0x919, 0x91a, 0xa00, 0xa09, 0xb27, 0xbff, 0xc00, 0xc08,
		0xd0a, 0xd5c, 0xe00, 0xe0a, 0xe0b, 0xf00, 0xf00d, 0xffff,
	};
	static const unsigned char kb_tables[] = { 0, 1, 2, 3, 4, 0x28, 0xff };
	for (unsigned int t = 0; t < sizeof(kb_tables); t++)
		for (unsigned int v = 0; v < sizeof(kb_values) / sizeof(*kb_values); v++) {
			ke->kb_table = kb_tables[t];
			ke->kb_index = v * 7;
			ke->kb_value = kb_values[v];
			kd(-1, KDSKBENT, (unsigned long) ke);
			if (v % 8 == 0)
				kd(-1, KDGKBENT, (unsigned long) ke);
		}
	/* each struct ends where the mapping does: they share its last bytes */
	struct kbkeycode *kc = (struct kbkeycode *) (end - sizeof(*kc));
	struct kbd_repeat *rep = (struct kbd_repeat *) (end - sizeof(*rep));
	struct unimapinit *umi = (struct unimapinit *) (end - sizeof(*umi));
	for (unsigned int f = 0; f < 2; f++)
		for (unsigned int shift = 0; shift < 2; shift++) {
			kc->scancode = 0xdecaffed;
			kc->keycode = 0;
			kd(fds[f], KDSETKEYCODE, (unsigned long) kc + shift);
			kd(fds[f], KDGETKEYCODE, (unsigned long) kc + shift);
			rep->delay = -1234567890;
			rep->period = 33;
			kd(fds[f], KDKBDREP, (unsigned long) rep + shift);
			umi->advised_hashsize = 0xdead;
			umi->advised_hashstep = 1;
			umi->advised_hashlevel = 2;
			kd(fds[f], PIO_UNIMAPCLR, (unsigned long) umi + shift);
			ke->kb_table = K_ALTTAB;
			ke->kb_index = 42;
			ke->kb_value = K(KT_SPEC, 1);
			kd(fds[f], KDSKBENT, (unsigned long) ke + shift);
			kd(fds[f], KDGKBENT, (unsigned long) ke + shift);
		}

	/* struct kbsentry: strings of 0, 31, 32 and 40 bytes, and one cut by the mapping */
	struct kbsentry *se = (struct kbsentry *) map;
	static const unsigned int lens[] = { 0, 31, 32, 40 };
	for (unsigned int n = 0; n < sizeof(lens) / sizeof(*lens); n++) {
		se->kb_func = (unsigned char) (n * 100);
		memset(se->kb_string, 'a' + n, lens[n]);
		se->kb_string[lens[n]] = 0;
		se->kb_string[0] = '\033';
		kd(-1, KDSKBSENT, (unsigned long) se);
		kd(-1, KDGKBSENT, (unsigned long) se);
	}
	kd(-1, KDGKBSENT, (unsigned long) end - 1);

	/* the tables: a few bytes of each, 32, 33 and the whole of them readable */
	for (unsigned int k = 0; k < 256; k++)
		end[-1 - (int) k] = (char) k;
	static const unsigned int table_reqs[] = {
		PIO_SCRNMAP, GIO_SCRNMAP, PIO_FONT, GIO_FONT, PIO_CMAP, GIO_CMAP,
	};
	static const unsigned int readable[] = { 16, 32, 33, 48, 256 };
	for (unsigned int r = 0; r < sizeof(table_reqs) / sizeof(*table_reqs); r++)
		for (unsigned int n = 0; n < sizeof(readable) / sizeof(*readable); n++)
			kd(-1, table_reqs[r], (unsigned long) (end - readable[n]));

	/* NULL, an odd pointer and garbage in the high half for the gets */
	static const unsigned int gets[] = {
		KDGETLED, KDGKBLED, KDGKBTYPE, KDGETMODE, KDGKBMODE, KDGKBMETA,
		KDGETKEYCODE, KDKBDREP, KDGKBENT, GIO_SCRNMAP, GIO_CMAP,
	};
	for (unsigned int r = 0; r < sizeof(gets) / sizeof(*gets); r++) {
		kd(-1, gets[r], 0);
		kd(-1, gets[r], (unsigned long) end - 1);
		kd(null, gets[r], (unsigned long) end - 4);
	}

	/* what the gets write, on the console when there is one */
	int tty = open("/dev/tty0", O_RDONLY | O_NOCTTY);
	if (tty >= 0) {
		char *buf = map;
		memset(buf, 0, 64);
		for (unsigned int r = 0; r < 6; r++)
			kd(tty, gets[r], (unsigned long) buf);
		struct kbentry *e = (struct kbentry *) buf;
		static const unsigned char idx[] = { 1, 2, 16, 28, 30, 42, 59, 72, 103 };
		for (unsigned int i = 0; i < sizeof(idx); i++) {
			e->kb_table = i % 2 ? K_SHIFTTAB : K_NORMTAB;
			e->kb_index = idx[i];
			e->kb_value = 0;
			kd(tty, KDGKBENT, (unsigned long) e);
		}
		struct kbkeycode *c = (struct kbkeycode *) buf;
		c->scancode = 1;
		c->keycode = 0;
		kd(tty, KDGETKEYCODE, (unsigned long) c);
		kd(tty, GIO_SCRNMAP, (unsigned long) buf);
		kd(tty, GIO_CMAP, (unsigned long) buf);
		close(tty);
	}
	return 0;
}
