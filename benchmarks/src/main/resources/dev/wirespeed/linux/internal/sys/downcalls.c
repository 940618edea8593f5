/*
 * The system calls the library makes on its hot paths, each repeated n times in a C loop with the
 * same arguments: what one call costs C, for DownCallVsC to set beside the same call through FFM.
 * Each returns the sum of the calls' results (or of -errno where one fails), so that none is dropped.
 *
 * downcalls_SHAPE makes the system call through syscall(2), as the library does and as a single-threaded
 * C program's wrappers amount to; downcalls_SHAPE_libc through the C library's wrapper, which in a
 * multi-threaded process (as this one, loaded into a JVM) also switches the thread's cancellation type
 * around each call.
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
        long r = syscall(SYS_recvfrom, fd, buf, length, 0, (void *) 0, (void *) 0);
        sum += r < 0 ? -errno : r;
    }
    return sum;
}

long downcalls_send(int fd, void *buf, long length, long n) {
    long sum = 0;
    for (long i = 0; i < n; i++) {
        long r = syscall(SYS_sendto, fd, buf, length, MSG_NOSIGNAL, (void *) 0, 0);
        sum += r < 0 ? -errno : r;
    }
    return sum;
}

long downcalls_read(int fd, void *buf, long length, long n) {
    long sum = 0;
    for (long i = 0; i < n; i++) {
        long r = syscall(SYS_read, fd, buf, length);
        sum += r < 0 ? -errno : r;
    }
    return sum;
}

long downcalls_write(int fd, void *buf, long length, long n) {
    long sum = 0;
    for (long i = 0; i < n; i++) {
        long r = syscall(SYS_write, fd, buf, length);
        sum += r < 0 ? -errno : r;
    }
    return sum;
}

long downcalls_epoll_wait(int epfd, void *events, long maxevents, long n) {
    long sum = 0;
    for (long i = 0; i < n; i++) {
        long r = syscall(SYS_epoll_pwait, epfd, events, (int) maxevents, 0, (void *) 0, 8);
        sum += r < 0 ? -errno : r;
    }
    return sum;
}

long downcalls_recv_libc(int fd, void *buf, long length, long n) {
    long sum = 0;
    for (long i = 0; i < n; i++) {
        long r = recv(fd, buf, length, 0);
        sum += r < 0 ? -errno : r;
    }
    return sum;
}

long downcalls_send_libc(int fd, void *buf, long length, long n) {
    long sum = 0;
    for (long i = 0; i < n; i++) {
        long r = send(fd, buf, length, MSG_NOSIGNAL);
        sum += r < 0 ? -errno : r;
    }
    return sum;
}

long downcalls_read_libc(int fd, void *buf, long length, long n) {
    long sum = 0;
    for (long i = 0; i < n; i++) {
        long r = read(fd, buf, length);
        sum += r < 0 ? -errno : r;
    }
    return sum;
}

long downcalls_write_libc(int fd, void *buf, long length, long n) {
    long sum = 0;
    for (long i = 0; i < n; i++) {
        long r = write(fd, buf, length);
        sum += r < 0 ? -errno : r;
    }
    return sum;
}

long downcalls_epoll_wait_libc(int epfd, void *events, long maxevents, long n) {
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
