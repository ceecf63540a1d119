/* strace -i: a static, non-PIE program whose calls, signal and exit sit at fixed
 * addresses (no ASLR of its text), so two traces of it print the same instruction
 * pointers. A signal taken on return from kill(2), its handler's rt_sigreturn, a child
 * whose exit sends SIGCHLD (default disposition) while the parent waits in wait4, a
 * 32-bit call made with int $0x80 (an i386 getpid: strace prints 8 digits then), then
 * exit. */
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <time.h>
#include <sys/syscall.h>
#include <sys/wait.h>

static volatile sig_atomic_t got;

static void on_usr1(int sig)
{
	got = sig;
}

int main(void)
{
	struct sigaction sa;
	struct timespec nap = {0, 100 * 1000 * 1000};
	long ret;
	pid_t child;
	int status = -1;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	syscall(SYS_getppid);
	kill(getpid(), SIGUSR1);
	child = fork();
	if (child == 0) {
		nanosleep(&nap, NULL);    /* the parent is in wait4 when this child exits */
		_exit(3);
	}
	waitpid(child, &status, 0);
	__asm__ volatile("int $0x80" : "=a"(ret) : "a"(20L) : "memory");  /* i386 getpid */
	syscall(SYS_getppid);
	return got == SIGUSR1 && ret > 0 && WIFEXITED(status) ? 0 : 1;
}
