/* 32-bit system calls made with int $0x80 (the i386 ABI: nr in eax, arguments in ebx,
 * ecx, edx, esi, edi, ebp) by a 64-bit program, built -no-pie so that its static data
 * sits below 4 GiB, where a 32-bit pointer can name it. argv[1]: a file to open and read.
 * Numbers from arch/x86/entry/syscalls/syscall_32.tbl. With argv[2] = "junk" the upper
 * halves of the argument registers hold garbage: a 32-bit call ignores them (the kernel
 * reads ebx, not rbx), and so must a tracer. */
#include <string.h>

static long junk;

static char path[256];
static char missing[] = "/nonexistent/tracekit-i386";
static char msg[] = "hello from int 0x80\n";
static char buf[64];

static long int80(long nr, long a, long b, long c)
{
	long ret;

	a |= junk;
	b |= junk;
	c |= junk;
	__asm__ volatile("int $0x80" : "=a"(ret) : "a"(nr), "b"(a), "c"(b), "d"(c) : "memory");
	return ret;
}

int main(int argc, char **argv)
{
	long fd;

	if (argc < 2 || strlen(argv[1]) >= sizeof(path))
		return 2;
	strcpy(path, argv[1]);
	if (argc > 2 && strcmp(argv[2], "junk") == 0)
		junk = 0x5a5a5a5a00000000L;
	int80(20, 0, 0, 0);                               /* getpid() */
	int80(5, (long)missing, 0, 0);                    /* open(missing, O_RDONLY): ENOENT */
	int80(4, 1, (long)msg, (long)strlen(msg));        /* write(1, msg, 20) */
	fd = int80(5, (long)path, 0, 0);                  /* open(path, O_RDONLY) */
	int80(3, fd, (long)buf, sizeof(buf));             /* read(fd, buf, 64) */
	int80(6, fd, 0, 0);                               /* close(fd) */
	int80(33, (long)path, 4, 0);                      /* access(path, R_OK) */
	return fd < 0;
}
