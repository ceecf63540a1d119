/* execve calls that fail (ENOENT) with an envp pointer array at the very end of its
 * mapping, the page after it PROT_NONE: a fixed-size read of the array past its NULL
 * faults there (dash's PATH search has its array on its heap so). 40 variables, then 3
 * (the array's last 4 pointers), then 255 (the most a 2048-byte read counts) and 256,
 * and 1 (strace: "1 var", in the singular).
 * Build: gcc -O1 -Wall -Werror -o envp_edge envp_edge.c
 * (tests/e2e/test_strace_environment.py does it). */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static char names[256][8];

static void call(char *page, size_t size, int n)
{
	char **envp = (char **)(page + size) - (n + 1);
	char *args[] = { "x", NULL };
	int i;

	for (i = 0; i < n; i++)
		envp[i] = names[i];
	envp[n] = NULL;
	execve("/nonexistent/x", args, envp);
}

int main(void)
{
	size_t size = 4 * 4096;
	char *m = mmap(NULL, size + 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int i;

	if (m == MAP_FAILED || mprotect(m + size, 4096, PROT_NONE))
		return 1;
	for (i = 0; i < 256; i++)
		snprintf(names[i], sizeof(names[i]), "V%d=%d", i, i & 7);
	memset(m, 0xff, size);
	call(m, size, 40);
	call(m, size, 3);
	call(m, size, 255);
	call(m, size, 256);
	call(m, size, 1);
	return 0;
}
