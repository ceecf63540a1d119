/* Calls whose first argument is an fd that strace -y shows with its path although the
 * kernel headers name it otherwise (ruleset_fd): landlock_add_rule and
 * landlock_restrict_self on /dev/zero (not a ruleset: EBADFD), with a rule and without.
 *
 * tests/e2e/test_strace_fd_args.py runs it under strace -f -y and tracekit at once:
 * every line must be equal. Build: gcc -O1 -Wall -Werror -o fd_args fd_args.c;
 * argument: a scratch directory (unused). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/landlock.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void)
{
    int fd = open("/dev/zero", O_RDONLY);
    struct landlock_path_beneath_attr rule = {
        .allowed_access = LANDLOCK_ACCESS_FS_EXECUTE, .parent_fd = fd};

    if (fd < 0)
        return 1;
    syscall(SYS_landlock_add_rule, fd, LANDLOCK_RULE_PATH_BENEATH, &rule, 0);
    syscall(SYS_landlock_add_rule, fd, 0, NULL, 0);
    syscall(SYS_landlock_restrict_self, fd, 0);
    return 0;
}
