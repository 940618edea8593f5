/*
 * The system calls the library makes on its hot paths, each repeated n times in a C loop with the
 * same arguments: what one call costs C, for DownCallVsC to set beside the same call through FFM.
 * Each returns the sum of the calls' results (or of -errno where one fails), so that none is dropped.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

long downcalls_recv(int fd, void *buf, long length, long n) {
    long sum = 0;
    for (long i = 0; i < n; i++) {
        long r = recv(fd, buf, length, 0);
        sum += r < 0 ? -errno : r;
    }
    return sum;
}

long downcalls_send(int fd, void *buf, long length, long n) {
    long sum = 0;
    for (long i = 0; i < n; i++) {
        long r = send(fd, buf, length, MSG_NOSIGNAL);
        sum += r < 0 ? -errno : r;
    }
    return sum;
}

long downcalls_read(int fd, void *buf, long length, long n) {
    long sum = 0;
    for (long i = 0; i < n; i++) {
        long r = read(fd, buf, length);
        sum += r < 0 ? -errno : r;
    }
    return sum;
}

long downcalls_write(int fd, void *buf, long length, long n) {
    long sum = 0;
    for (long i = 0; i < n; i++) {
        long r = write(fd, buf, length);
        sum += r < 0 ? -errno : r;
    }
    return sum;
}

long downcalls_epoll_wait(int epfd, void *events, long maxevents, long n) {
    long sum = 0;
    for (long i = 0; i < n; i++) {
        long r = epoll_wait(epfd, events, (int) maxevents, 0);
        sum += r < 0 ? -errno : r;
    }
    return sum;
}

long downcalls_io_uring_enter(int ringfd, void *unused, long flags, long n) {
    long sum = 0;
    for (long i = 0; i < n; i++) {
        long r = syscall(__NR_io_uring_enter, ringfd, 0, 0, (unsigned) flags, (void *) 0, 0L);
        sum += r < 0 ? -errno : r;
    }
    return sum;
}
