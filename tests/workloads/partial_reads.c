/* Memory cut by the end of its mapping, as strace's own tests place it (tests/nlattr.h,
 * test_nlattr.h): a buffer that ends at the end of a mapped page, the next page unmapped,
 * and a length that reaches past it. strace reads what is readable: a netlink message's
 * header, payload struct and each attribute on its own, an array element by element, -s
 * + 1 bytes of a string; it prints what it read and the address of the first part it
 * could not read. A struct read whole prints as its address.
 *
 * On a bound NETLINK_ROUTE socket (strace knows its protocol): messages whose header
 * only, header and ifaddrmsg's family byte only, header and ifaddrmsg only, a first
 * attribute's header only are readable; a second message's and a second attribute's
 * header past the page. IFLA_AF_SPEC's IFLA_INET_CONF array cut after two elements. On
 * a pipe: write's buffer readable for -s + 1 bytes and for fewer. poll's array cut
 * after two entries, at its start, and inside its second entry; setgroups' gids and
 * semop's operations cut after one element and inside the first. Structs: nanosleep's
 * timespec, sendto's sockaddr and setsockopt's int, each cut by the page end.
 *
 * tests/e2e/test_strace_partial_reads.py runs it under strace -f and tracekit at once:
 * every line must be equal. Build: gcc -O1 -Wall -Werror -o partial_reads
 * partial_reads.c; argument: a scratch directory (unused). */
#define _GNU_SOURCE
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <poll.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sem.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static char *page_end;  /* the first byte past the readable page */

/* n bytes of src copied so that they end at page_end; returns where they start */
static void *at_end(const void *src, size_t n)
{
    char *p = page_end - n;

    memcpy(p, src, n);
    return p;
}

struct msg {
    struct nlmsghdr h;
    struct ifaddrmsg ifa;
    struct rtattr a1;
    unsigned char addr1[4];
    struct rtattr a2;
    unsigned char addr2[4];
};

static void route(int s)
{
    struct msg m = {
        .h = {.nlmsg_len = sizeof(m), .nlmsg_type = RTM_GETADDR,
              .nlmsg_flags = NLM_F_REQUEST, .nlmsg_seq = 1700000100},
        .ifa = {.ifa_family = AF_INET, .ifa_prefixlen = 8, .ifa_index = 1},
        .a1 = {.rta_len = 8, .rta_type = IFA_ADDRESS}, .addr1 = {127, 0, 0, 1},
        .a2 = {.rta_len = 8, .rta_type = IFA_LOCAL}, .addr2 = {127, 0, 0, 2},
    };
    size_t cut[] = {
        sizeof(m.h),                                    /* the header */
        sizeof(m.h) + 1,                                /* and the family byte */
        sizeof(m.h) + sizeof(m.ifa),                    /* and the ifaddrmsg */
        sizeof(m.h) + sizeof(m.ifa) + 4,                /* and the attribute's header */
        sizeof(m.h) + sizeof(m.ifa) + 7,                /* and 3 of its 4 bytes */
        sizeof(m.h) + sizeof(m.ifa) + 8,                /* the first attribute whole */
        sizeof(m.h) - 4,                                /* not even the header */
    };
    for (size_t i = 0; i < sizeof(cut) / sizeof(cut[0]); i++)
        sendto(s, at_end(&m, cut[i]), sizeof(m), MSG_DONTWAIT, NULL, 0);

    /* two messages: the second one's header past the page */
    struct { struct nlmsghdr h; struct rtgenmsg g; char pad[3]; } two = {
        .h = {.nlmsg_len = sizeof(two), .nlmsg_type = RTM_GETLINK,
              .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP, .nlmsg_seq = 1700000101},
        .g = {.rtgen_family = AF_UNSPEC},
    };
    sendto(s, at_end(&two, sizeof(two)), 2 * sizeof(two), MSG_DONTWAIT, NULL, 0);

    /* IFLA_AF_SPEC, AF_INET, IFLA_INET_CONF: an array of u32 cut after 2 elements */
    struct {
        struct nlmsghdr h;
        struct ifinfomsg ifi;
        struct rtattr spec, inet, conf;
        unsigned int vals[4];
    } link = {
        .h = {.nlmsg_len = sizeof(link), .nlmsg_type = RTM_NEWLINK,
              .nlmsg_flags = NLM_F_REQUEST, .nlmsg_seq = 1700000102},
        .ifi = {.ifi_family = AF_UNSPEC, .ifi_index = 1},
        .spec = {.rta_len = 4 + 4 + 4 + 16, .rta_type = IFLA_AF_SPEC},
        .inet = {.rta_len = 4 + 4 + 16, .rta_type = AF_INET},
        .conf = {.rta_len = 4 + 16, .rta_type = IFLA_INET_CONF},
        .vals = {1, 0, 1, 0},
    };
    sendto(s, at_end(&link, sizeof(link) - 8), sizeof(link), MSG_DONTWAIT, NULL, 0);
}

int main(void)
{
    long page = sysconf(_SC_PAGESIZE);
    char *map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    if (map == MAP_FAILED)
        return 1;
    munmap(map + page, page);
    page_end = map + page;

    int s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    struct sockaddr_nl nl = {.nl_family = AF_NETLINK};

    bind(s, (void *)&nl, sizeof(nl));
    route(s);

    /* write: readable for -s + 1 bytes (strace prints -s of them), then for fewer */
    int p[2];
    char text[64];

    if (pipe(p))
        return 1;
    memset(text, 'a', sizeof(text));
    write(p[1], at_end(text, 40), 100);
    write(p[1], at_end(text, 20), 100);

    /* poll's array, read element by element: the entries before the page end */
    struct pollfd fds[2] = {{0, POLLIN, 0}, {1, POLLOUT, 0}};
    struct pollfd *pf = at_end(fds, sizeof(fds));

    poll(pf, 3, 0);
    poll(pf + 2, 1, 0);
    poll((void *)((char *)pf + 12), 2, 0);

    /* setgroups' gids and semop's operations, read element by element too (the
     * semaphore set does not exist, the gid list is refused: nothing changes) */
    unsigned int gids[2] = {-1u, 5};
    unsigned int *g = at_end(gids, sizeof(gids));
    struct sembuf op = {.sem_num = 1, .sem_op = -1, .sem_flg = SEM_UNDO};

    syscall(SYS_setgroups, 3, g);
    syscall(SYS_setgroups, 1, (char *)g + 6);
    syscall(SYS_setgroups, 65537, g);   /* more than NGROUPS_MAX: strace reads none */
    syscall(SYS_semop, -1, at_end(&op, sizeof(op)), 2);
    syscall(SYS_semtimedop, -1, at_end(&op, sizeof(op)), 3, NULL);
    syscall(SYS_semop, -1, (char *)at_end(&op, sizeof(op)) + 3, 2);

    /* structs read whole: their address */
    struct timespec ts = {0, 1};
    nanosleep(at_end(&ts, 8), NULL);
    struct sockaddr_nl to = {.nl_family = AF_NETLINK};
    sendto(s, "x", 1, MSG_DONTWAIT, at_end(&to, 6), sizeof(to));
    int one = 1;
    setsockopt(s, SOL_SOCKET, SO_RCVBUF, at_end(&one, 2), sizeof(one));
    return 0;
}
