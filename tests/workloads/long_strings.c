/* Many calls whose data is long: write(2) to /dev/null of buffers of every length from
 * 0 to 4096 bytes, again and again (argv[1] calls, 40000 if not given), as fast as the
 * program can make them. The bytes are printable runs broken every 61 bytes by one that
 * strace prints escaped (a tab, a newline, a quote, a backslash, a byte above 0x7e), so
 * both the fast path and the escapes of string quoting are used. Each call's outcome is
 * the same from run to run. Under `strace -s4096` every byte of every buffer is printed:
 * some 100 MB of records for a tracer that reads them without stopping the program.
 * Build: gcc -O1 -o long_strings long_strings.c   (tests/e2e/test_strace_long_strings.py) */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

static char buf[4096];

int main(int argc, char **argv)
{
    static const char odd[] = "\t\n\"\\\377";
    long calls = argc > 1 ? atol(argv[1]) : 40000;
    int fd = open("/dev/null", O_WRONLY);

    if (fd < 0)
        return 1;
    for (unsigned i = 0; i < sizeof(buf); i++)
        buf[i] = i % 61 ? 'a' + i % 26 : odd[(i / 61) % 5];
    for (long i = 0; i < calls; i++)
        if (write(fd, buf, i % (sizeof(buf) + 1)) < 0)
            return 1;
    return 0;
}
