/* fd decorations (-yy) that a tracer which reads /proc/PID/fd late gets wrong: fds that
 * are closed when a call names them but open again (another file at the same number) by
 * the time the call's record is decoded, and paths under /proc/self and /proc/thread-self.
 *
 * 1. fd 3 is opened and closed; fcntl(3, F_GETFD) fails with EBADF; a second file opens at
 *    fd 3 and stays open a while: strace prints the failed fcntl's fd bare.
 * 2. fd 255 is made close-on-exec (as bash keeps its script there) and the program execs
 *    itself: in the new image fd 255 is closed (fcntl fails with EBADF, and dup2's target
 *    is bare), then dup2 makes it another file, kept open a while.
 * 3. /proc/self/status, /proc/thread-self/stat and "self/stat" under an fd of /proc are
 *    opened: the kernel names them /proc/PID/... with the program's own pid.
 * 5. files unlinked (unlink, unlinkat, unlinkat with AT_REMOVEDIR) while open, then
 *    named by calls: /proc shows them "(deleted)" (as multiprocessing's semaphores in
 *    /dev/shm); a symlink unlinked leaves the file it names as it was.
 * 4. after the exec, a pty's peer is opened with ioctl(TIOCGPTPEER) (as glibc's openpty
 *    does), which returns an fd that no fd-returning call made, and used while open.
 *
 * Usage: sweep_fdpaths DIR (a scratch directory; "child" as argv[2] runs part 2's new
 * image). Harmless: it opens only /proc files of its own, files in DIR and a pty pair
 * of its own.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

static void wait_a_while(void) { usleep(300 * 1000); }

static int open_in(const char *dir, const char *name, int flags) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return open(path, flags | O_CREAT, 0600);
}

int main(int argc, char **argv) {
    if (argc < 2)
        return 2;
    const char *dir = argv[1];
    if (argc > 2 && strcmp(argv[2], "child") == 0) {
        fcntl(255, F_GETFD);
        int fd = open_in(dir, "after-exec", O_RDONLY);
        dup2(fd, 255);
        close(fd);
        fcntl(255, F_GETFD);
        int master = posix_openpt(O_RDWR | O_NOCTTY);
        if (master >= 0 && unlockpt(master) == 0) {
            int peer = ioctl(master, TIOCGPTPEER, O_RDWR | O_NOCTTY);
            struct termios t;
            if (peer >= 0) {
                tcgetattr(peer, &t);
                fcntl(peer, F_GETFL);
                wait_a_while();     /* open while its calls are decoded */
                close(peer);
            }
            close(master);
        }
        wait_a_while();
        return 0;
    }
    int fd = open_in(dir, "first", O_RDONLY);          /* 3 */
    close(fd);
    fcntl(fd, F_GETFD);                                 /* EBADF */
    int again = open_in(dir, "second", O_RDONLY);       /* 3 again */
    wait_a_while();
    close(again);

    int p = open("/proc/self/status", O_RDONLY);
    close(p);
    p = open("/proc/thread-self/stat", O_RDONLY);
    close(p);
    int proc = open("/proc", O_RDONLY | O_DIRECTORY);
    p = openat(proc, "self/stat", O_RDONLY);
    close(p);
    close(proc);

    char path[4096];
    int gone = open_in(dir, "gone", O_RDWR);
    snprintf(path, sizeof path, "%s/gone", dir);
    unlink(path);
    fcntl(gone, F_GETFL);
    int dirfd = open(dir, O_RDONLY | O_DIRECTORY);
    int gone2 = open_in(dir, "gone2", O_RDWR);
    unlinkat(dirfd, "gone2", 0);
    fcntl(gone2, F_GETFL);
    snprintf(path, sizeof path, "%s/sub", dir);
    mkdir(path, 0700);
    int sub = open(path, O_RDONLY | O_DIRECTORY);
    unlinkat(dirfd, "sub", AT_REMOVEDIR);
    fcntl(sub, F_GETFL);
    int kept = open_in(dir, "kept", O_RDWR);
    snprintf(path, sizeof path, "%s/link", dir);
    symlink("kept", path);
    unlink(path);
    fcntl(kept, F_GETFL);
    close(kept);
    close(sub);
    close(gone2);
    close(gone);
    close(dirfd);

    fd = open_in(dir, "script", O_RDONLY);
    dup3(fd, 255, O_CLOEXEC);
    close(fd);
    execl("/proc/self/exe", argv[0], dir, "child", (char *)NULL);
    return 1;
}
