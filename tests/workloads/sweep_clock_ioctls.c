/* A strace-parity sweep over the clock devices' ioctls: the PTP hardware clocks'
 * (linux/ptp_clock.h) and the real time clocks' (linux/rtc.h). The structs they read
 * and write (struct ptp_extts_request, ptp_perout_request with each flag, ptp_sys_offset,
 * ptp_pin_desc, ptp_clock_caps; struct rtc_time, rtc_wkalrm, rtc_pll_info, rtc_param of
 * each param) filled with patterns, zeroed, at the end of a mapping, past it, and NULL;
 * the value arguments.
 *
 * Every call is harmless: made on fd -1 (EBADF) and on /dev/null (ENOTTY) only.
 *
 * tests/e2e/test_strace_sweep_clock_ioctls.py runs it under strace -f and tracekit at
 * once, with and without -v: every line must be equal.
 * Build: gcc -O1 -Wall -Werror -o sweep_clock_ioctls sweep_clock_ioctls.c. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/ptp_clock.h>
#include <linux/rtc.h>
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

/* the request on NULL, on its struct at the end of the mapping (zeroed and filled),
 * one byte short of it and past the mapping */
static void sweep(int fd, unsigned int req, char *end, unsigned int size)
{
	char *p = end - size;
	io(fd, req, 0);
	memset(p, 0, size);
	io(fd, req, (unsigned long) p);
	fill(p, size, (unsigned char) req);
	io(fd, req, (unsigned long) p);
	io(fd, req, (unsigned long) p + 1);
	io(fd, req, (unsigned long) end);
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

	static const struct { unsigned int req, size; } reqs[] = {
		{ PTP_CLOCK_GETCAPS, sizeof(struct ptp_clock_caps) },
		{ PTP_CLOCK_GETCAPS2, sizeof(struct ptp_clock_caps) },
		{ PTP_EXTTS_REQUEST, sizeof(struct ptp_extts_request) },
		{ PTP_EXTTS_REQUEST2, sizeof(struct ptp_extts_request) },
		{ PTP_PEROUT_REQUEST, sizeof(struct ptp_perout_request) },
		{ PTP_PEROUT_REQUEST2, sizeof(struct ptp_perout_request) },
		{ PTP_PIN_GETFUNC, sizeof(struct ptp_pin_desc) },
		{ PTP_PIN_GETFUNC2, sizeof(struct ptp_pin_desc) },
		{ PTP_PIN_SETFUNC, sizeof(struct ptp_pin_desc) },
		{ PTP_PIN_SETFUNC2, sizeof(struct ptp_pin_desc) },
		{ PTP_SYS_OFFSET_PRECISE, sizeof(struct ptp_sys_offset_precise) },
		{ PTP_SYS_OFFSET_PRECISE2, sizeof(struct ptp_sys_offset_precise) },
		{ RTC_ALM_READ, sizeof(struct rtc_time) },
		{ RTC_RD_TIME, sizeof(struct rtc_time) },
		{ RTC_ALM_SET, sizeof(struct rtc_time) },
		{ RTC_SET_TIME, sizeof(struct rtc_time) },
		{ RTC_WKALM_RD, sizeof(struct rtc_wkalrm) },
		{ RTC_WKALM_SET, sizeof(struct rtc_wkalrm) },
		{ RTC_PLL_GET, sizeof(struct rtc_pll_info) },
		{ RTC_PLL_SET, sizeof(struct rtc_pll_info) },
		{ RTC_IRQP_READ, sizeof(unsigned long) },
		{ RTC_EPOCH_READ, sizeof(unsigned long) },
		{ RTC_VL_READ, sizeof(unsigned int) },
		{ RTC_PARAM_GET, sizeof(struct rtc_param) },
		{ RTC_PARAM_SET, sizeof(struct rtc_param) },
	};
	for (unsigned int f = 0; f < 2; f++)
		for (unsigned int r = 0; r < sizeof(reqs) / sizeof(*reqs); r++)
			sweep(fds[f], reqs[r].req, end, reqs[r].size);

	/* PTP_SYS_OFFSET*: only the count and the reserved words are read before the call
	 * fails; the struct whole, zeroed and filled */
	static const unsigned int sysoffs[] = {
		PTP_SYS_OFFSET, PTP_SYS_OFFSET2, PTP_SYS_OFFSET_EXTENDED,
		PTP_SYS_OFFSET_EXTENDED2,
	};
	struct ptp_sys_offset_extended *so = (struct ptp_sys_offset_extended *)
		(end - sizeof(*so));
	for (unsigned int r = 0; r < sizeof(sysoffs) / sizeof(*sysoffs); r++) {
		io(-1, sysoffs[r], 0);
		memset(so, 0, sizeof(*so));
		io(-1, sysoffs[r], (unsigned long) so);
		so->n_samples = 25;
		so->rsv[2] = 0xcafeface;
		io(-1, sysoffs[r], (unsigned long) so);
	}

	/* the PTP structs with each flag and pin function */
	struct ptp_extts_request *ex = (struct ptp_extts_request *) (end - sizeof(*ex));
	struct ptp_perout_request *po = (struct ptp_perout_request *) (end - sizeof(*po));
	struct ptp_pin_desc *pin = (struct ptp_pin_desc *) (end - sizeof(*pin));
	static const unsigned int flags[] = { 0, 1, 2, 4, 6, 7, 8, 0xf, 0xdeadbee8, -1U };
	for (unsigned int k = 0; k < sizeof(flags) / sizeof(*flags); k++) {
		memset(ex, 0, sizeof(*ex));
		ex->index = k;
		ex->flags = flags[k];
		ex->rsv[k % 2] = k & 1 ? 0xdeadc0de : 0;
		io(-1, PTP_EXTTS_REQUEST, (unsigned long) ex);
		io(-1, PTP_EXTTS_REQUEST2, (unsigned long) ex);
		fill(po, sizeof(*po), (unsigned char) k);
		po->start.sec = k < 5 ? 1700000000 + k : -1;
		po->start.nsec = k < 3 ? 123456789 : 1234567890;
		po->start.reserved = k & 1 ? 0 : 0xa205b064;
		po->flags = flags[k];
		if (k % 3 == 0)
			memset(po->rsv, 0, sizeof(po->rsv));
		io(-1, PTP_PEROUT_REQUEST, (unsigned long) po);
		io(-1, PTP_PEROUT_REQUEST2, (unsigned long) po);
		fill(pin, sizeof(*pin), (unsigned char) k);
		pin->func = k < 5 ? k : flags[k];
		if (k % 2)
			memset(pin->rsv, 0, sizeof(pin->rsv));
		io(-1, PTP_PIN_GETFUNC2, (unsigned long) pin);
		io(-1, PTP_PIN_SETFUNC, (unsigned long) pin);
		io(-1, PTP_PIN_SETFUNC2, (unsigned long) pin);
	}
	io(-1, PTP_ENABLE_PPS, 0);
	io(-1, PTP_ENABLE_PPS, -1UL);
	io(-1, PTP_ENABLE_PPS2, 0xdeadbeefUL);

	/* struct rtc_param of each param, the value and pad of each kind */
	struct rtc_param *rp = (struct rtc_param *) (end - sizeof(*rp));
	static const unsigned long long vals[] = {
		0, 1, 0xff, 0xbeef00, 0xfacefeedbadc0dedULL, -1337ULL, 3, 4,
	};
	for (unsigned int p = 0; p < 5; p++)
		for (unsigned int v = 0; v < sizeof(vals) / sizeof(*vals); v++) {
			rp->param = p < 4 ? p : 0xdeadbeefcafeULL;
			rp->uvalue = vals[v];
			rp->index = v * 1000;
			rp->__pad = v % 3 ? 0 : 0xbadc0ded;
			io(-1, RTC_PARAM_GET, (unsigned long) rp);
			io(-1, RTC_PARAM_SET, (unsigned long) rp);
		}

	/* the RTC value arguments and the requests without one */
	static const unsigned long rvals[] = { 0, 64, 0xdeadbeefbadc0dedUL, -1UL };
	for (unsigned int v = 0; v < sizeof(rvals) / sizeof(*rvals); v++) {
		io(-1, RTC_IRQP_SET, rvals[v]);
		io(-1, RTC_EPOCH_SET, rvals[v]);
	}
	static const unsigned int noarg[] = {
		RTC_AIE_ON, RTC_AIE_OFF, RTC_UIE_ON, RTC_UIE_OFF, RTC_PIE_ON, RTC_PIE_OFF,
		RTC_WIE_ON, RTC_WIE_OFF, RTC_VL_CLR,
	};
	for (unsigned int r = 0; r < sizeof(noarg) / sizeof(*noarg); r++)
		io(-1, noarg[r], 0xdeadbeef);
	return 0;
}
