/* A UDP echo server in C: the loopback floor the PFCP endpoint and `pfcp up` are compared
 * with (docs/benchmarks.md, pfcp-node). No PFCP work: every datagram goes back as it came.
 *
 *   cc -O2 -o udp_echo udp_echo.c
 *   ./udp_echo [plain|mmsg] [ADDR [PORT]]     (default: plain 127.0.0.1 0)
 *
 * plain: one blocking recvfrom, one sendto per datagram. mmsg: recvmmsg of up to 64 datagrams
 * (MSG_WAITFORONE: block for the first, take what else is queued), one sendmmsg back. The
 * first line on stdout is "listening on ADDR:PORT" (PORT 0: the kernel picks one). Runs until
 * killed. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define BATCH 64
#define MAX_DATAGRAM 2048

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "plain";
    const char *ip = argc > 2 ? argv[2] : "127.0.0.1";
    int port = argc > 3 ? atoi(argv[3]) : 0;
    int batched = strcmp(mode, "mmsg") == 0;
    if (!batched && strcmp(mode, "plain") != 0) {
        fprintf(stderr, "udp_echo: mode is plain or mmsg, not %s\n", mode);
        return 2;
    }
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    if (fd < 0) {
        perror("udp_echo: socket");
        return 1;
    }
    /* A large receive buffer, as the endpoint asks for: a burst of K is never dropped. */
    int size = 8 << 20;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
    struct sockaddr_in addr = {0};
    addr.sin_family = AF_INET;
    addr.sin_port = htons((unsigned short)port);
    if (inet_pton(AF_INET, ip, &addr.sin_addr) != 1) {
        fprintf(stderr, "udp_echo: not an IPv4 address: %s\n", ip);
        return 2;
    }
    if (bind(fd, (struct sockaddr *)&addr, sizeof addr) < 0) {
        perror("udp_echo: bind");
        return 1;
    }
    socklen_t len = sizeof addr;
    getsockname(fd, (struct sockaddr *)&addr, &len);
    printf("listening on %s:%d (%s)\n", ip, ntohs(addr.sin_port), mode);
    fflush(stdout);

    static char bufs[BATCH][MAX_DATAGRAM];
    if (!batched) {
        for (;;) {
            struct sockaddr_in from;
            socklen_t fl = sizeof from;
            ssize_t n = recvfrom(fd, bufs[0], MAX_DATAGRAM, 0, (struct sockaddr *)&from, &fl);
            if (n < 0)
                continue;
            sendto(fd, bufs[0], (size_t)n, 0, (struct sockaddr *)&from, fl);
        }
    }
    struct mmsghdr msgs[BATCH];
    struct iovec iovs[BATCH];
    struct sockaddr_in froms[BATCH];
    for (;;) {
        for (int i = 0; i < BATCH; i++) {
            iovs[i].iov_base = bufs[i];
            iovs[i].iov_len = MAX_DATAGRAM;
            memset(&msgs[i].msg_hdr, 0, sizeof msgs[i].msg_hdr);
            msgs[i].msg_hdr.msg_iov = &iovs[i];
            msgs[i].msg_hdr.msg_iovlen = 1;
            msgs[i].msg_hdr.msg_name = &froms[i];
            msgs[i].msg_hdr.msg_namelen = sizeof froms[i];
        }
        int n = recvmmsg(fd, msgs, BATCH, MSG_WAITFORONE, NULL);
        if (n <= 0)
            continue;
        /* Send back exactly what came: each datagram's length, to its sender. */
        for (int i = 0; i < n; i++)
            iovs[i].iov_len = msgs[i].msg_len;
        int sent = 0;
        while (sent < n) {
            int s = sendmmsg(fd, msgs + sent, (unsigned)(n - sent), 0);
            if (s <= 0)
                break;
            sent += s;
        }
    }
}
