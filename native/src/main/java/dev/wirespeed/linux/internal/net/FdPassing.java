package dev.wirespeed.linux.internal.net;

import dev.wirespeed.linux.NativeIoException;
import dev.wirespeed.linux.internal.sys.Errno;
import dev.wirespeed.linux.internal.sys.FdCalls;
import dev.wirespeed.linux.internal.sys.Flags;
import dev.wirespeed.linux.internal.sys.Sys;
import dev.wirespeed.linux.internal.sys.Syscalls;
import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * Descriptors passed over a connected Unix stream socket: one byte of data, which carries a control
 * message of {@code SOL_SOCKET}/{@code SCM_RIGHTS} listing them. {@code NativeSocket}'s memory-file calls
 * say the contract; this class makes the calls and refuses what a peer could send instead of one
 * descriptor, closing whatever came with it.
 *
 * <pre>
 * struct msghdr (64-bit Linux, 56 bytes)     struct cmsghdr, then its data, padded to 8
 * +0  msg_name        (unused, 0)            +0  cmsg_len    8  16 + 4 * descriptors
 * +8  msg_namelen     (0)                    +8  cmsg_level  4  SOL_SOCKET
 * +16 msg_iov         -&gt; one iovec: 1 byte   +12 cmsg_type   4  SCM_RIGHTS
 * +24 msg_iovlen      1                      +16 int fds[]      the descriptors
 * +32 msg_control     -&gt; the cmsghdrs
 * +40 msg_controllen  their bytes
 * +48 msg_flags       recvmsg's: MSG_CTRUNC where control data was cut
 * </pre>
 *
 * <p>Thread safety: static; a socket's calls as its other reads and writes (one receiver, one sender).
 */
public final class FdPassing {
    /** The most descriptors a message received here has room for; a message with more is cut short. */
    public static final int MAX_RECEIVED = 8;
    private static final long MSG_IOV = 16;
    private static final long MSG_IOVLEN = 24;
    private static final long MSG_CONTROL = 32;
    private static final long MSG_CONTROLLEN = 40;
    private static final long MSG_FLAGS = 48;
    private static final long MSGHDR_SIZE = 56;
    private static final long CMSG_LEN = 0;
    private static final long CMSG_LEVEL = 8;
    private static final long CMSG_TYPE = 12;
    /** {@code sizeof(struct cmsghdr)}, and where its data begins: {@code CMSG_LEN(0)}. */
    private static final long CMSG_HEADER = 16;

    private FdPassing() {
    }

    /**
     * Sends one byte (0) with {@code fds} in one {@code SCM_RIGHTS} control message ({@code sendmsg(2)},
     * {@code MSG_NOSIGNAL}).
     *
     * @return true if sent; false where the socket is non-blocking and its send buffer is full
     * @throws NativeIoException if {@code sendmsg} fails ({@code EPIPE} once the peer closed), naming
     *     {@code socket}
     */
    public static boolean send(SocketFd socket, int... fds) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            long controlBytes = space(fds.length);
            MemorySegment message = arena.allocate(MSGHDR_SIZE, Long.BYTES);
            MemorySegment control = arena.allocate(controlBytes, Long.BYTES);
            control.set(ValueLayout.JAVA_LONG, CMSG_LEN, CMSG_HEADER + (long) Integer.BYTES * fds.length);
            control.set(ValueLayout.JAVA_INT, CMSG_LEVEL, Flags.SOL_SOCKET);
            control.set(ValueLayout.JAVA_INT, CMSG_TYPE, Flags.SCM_RIGHTS);
            MemorySegment.copy(fds, 0, control, ValueLayout.JAVA_INT, CMSG_HEADER, fds.length);
            point(message, arena, control, controlBytes);
            int flags = Flags.MSG_NOSIGNAL | (socket.isBlocking() ? 0 : Flags.MSG_DONTWAIT);
            long n = FdCalls.sendmsg(Syscalls.capture(arena), socket.fd(), message, flags);
            if (n == -Errno.EAGAIN) {
                return false;
            }
            if (n < 0) {
                throw new NativeIoException("sendmsg", (int) -n, "SCM_RIGHTS descriptors=" + Arrays.toString(fds) + " "
                        + socket.describe());
            }
            return true;
        }
    }

    /**
     * Receives one byte and the one descriptor that came with it ({@code recvmsg(2)} with {@code
     * MSG_CMSG_CLOEXEC}, so that the descriptor is close-on-exec from the start): the descriptor, now this
     * process's, which the caller closes.
     *
     * @return the descriptor; or -1 where the socket is non-blocking and nothing has come
     * @throws EOFException if the peer closed the socket before sending a byte
     * @throws IOException refusing a byte that came with no descriptor, with more than one, with control data
     *     cut short ({@code MSG_CTRUNC}: more descriptors than {@value #MAX_RECEIVED}), or with control data
     *     of another kind, naming what came and {@code socket}; every descriptor that came is closed first
     * @throws NativeIoException if {@code recvmsg} fails, naming {@code socket}
     */
    public static int receive(SocketFd socket) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            long controlBytes = space(MAX_RECEIVED);
            MemorySegment message = arena.allocate(MSGHDR_SIZE, Long.BYTES);
            MemorySegment control = arena.allocate(controlBytes, Long.BYTES);
            point(message, arena, control, controlBytes);
            int flags = Flags.MSG_CMSG_CLOEXEC | (socket.isBlocking() ? 0 : Flags.MSG_DONTWAIT);
            long n = FdCalls.recvmsg(Syscalls.capture(arena), socket.fd(), message, flags);
            if (n == -Errno.EAGAIN) {
                return -1;
            }
            if (n < 0) {
                throw new NativeIoException("recvmsg", (int) -n, socket.describe());
            }
            long used = message.get(ValueLayout.JAVA_LONG, MSG_CONTROLLEN);
            int[] fds = new int[MAX_RECEIVED];
            int count = 0;
            String other = null;
            // CMSG_FIRSTHDR and CMSG_NXTHDR: each header whole within the bytes the kernel says it used.
            for (long at = 0; at + CMSG_HEADER <= used; ) {
                long length = control.get(ValueLayout.JAVA_LONG, at + CMSG_LEN);
                if (length < CMSG_HEADER || at + length > used) {
                    break;
                }
                int level = control.get(ValueLayout.JAVA_INT, at + CMSG_LEVEL);
                int type = control.get(ValueLayout.JAVA_INT, at + CMSG_TYPE);
                if (level == Flags.SOL_SOCKET && type == Flags.SCM_RIGHTS) {
                    for (long i = at + CMSG_HEADER; i + Integer.BYTES <= at + length && count < fds.length;
                            i += Integer.BYTES) {
                        fds[count++] = control.get(ValueLayout.JAVA_INT, i);
                    }
                } else if (other == null) {
                    other = "level=" + level + " type=" + type;
                }
                at += align(length);
            }
            int messageFlags = message.get(ValueLayout.JAVA_INT, MSG_FLAGS);
            if (n == 0 && count == 0) {
                throw new EOFException("end of stream before a descriptor: the peer closed " + socket.describe());
            }
            if (count == 1 && other == null && (messageFlags & Flags.MSG_CTRUNC) == 0) {
                return fds[0];
            }
            for (int i = 0; i < count; i++) {
                Sys.closeQuietly(fds[i]);
            }
            throw new IOException(refusal(count, other, messageFlags) + "; " + socket.describe());
        }
    }

    private static String refusal(int count, String other, int messageFlags) {
        if ((messageFlags & Flags.MSG_CTRUNC) != 0) {
            return "a message whose control data was cut short (MSG_CTRUNC): more than " + MAX_RECEIVED
                    + " descriptors, or more control data than they take; the " + count + " that came were closed";
        }
        if (other != null) {
            return "a message with control data other than descriptors (" + other + ") and " + count
                    + " descriptors, not one alone; the descriptors were closed";
        }
        if (count == 0) {
            return "a message with no descriptor: one byte came with 0 descriptors, not 1";
        }
        return "a message with " + count + " descriptors, not 1; all " + count + " were closed";
    }

    /** Points {@code message} at an {@code iovec} of one byte, both from {@code arena}, and at the control buffer. */
    private static void point(MemorySegment message, Arena arena, MemorySegment control, long controlBytes) {
        MemorySegment iov = arena.allocate(16, Long.BYTES);
        iov.set(ValueLayout.ADDRESS, 0, arena.allocate(1));
        iov.set(ValueLayout.JAVA_LONG, 8, 1);
        message.set(ValueLayout.ADDRESS, MSG_IOV, iov);
        message.set(ValueLayout.JAVA_LONG, MSG_IOVLEN, 1);
        message.set(ValueLayout.ADDRESS, MSG_CONTROL, control);
        message.set(ValueLayout.JAVA_LONG, MSG_CONTROLLEN, controlBytes);
    }

    /** {@return {@code CMSG_SPACE} of {@code count} descriptors: a header and their ints, padded to 8} */
    private static long space(int count) {
        return CMSG_HEADER + align((long) Integer.BYTES * count);
    }

    private static long align(long bytes) {
        return bytes + 7 & ~7L;
    }
}
