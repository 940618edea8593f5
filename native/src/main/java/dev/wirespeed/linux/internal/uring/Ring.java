package dev.wirespeed.linux.internal.uring;

import dev.wirespeed.linux.NativeIoException;
import dev.wirespeed.linux.internal.sys.Errno;
import dev.wirespeed.linux.internal.sys.LibC;
import dev.wirespeed.linux.internal.sys.Sys;
import dev.wirespeed.linux.internal.sys.SyscallNumbers;
import dev.wirespeed.linux.internal.sys.Syscalls;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * An io_uring instance, set up and driven through the Foreign Function and Memory API alone (no
 * liburing, no JNI): a submission queue and a completion queue the process shares with the kernel.
 *
 * <p>Use: {@link #open(Params)}; prepare operations ({@link #nop}, {@link #read}, {@link #write},
 * {@link #recv}, {@link #recvMultishot}, {@link #send}, {@link #sendZeroCopy}, {@link #poll}, {@link #connect},
 * {@link #cancel}), each of which takes the next
 * free submission entry and returns false, preparing nothing, when the submission queue is full; {@link #submit()} hands the
 * prepared ones to the kernel and {@link #submitAndWait(int)} also waits until completions are there
 * ({@link #withdraw()} takes back what a failed one left unconsumed);
 * {@link #complete(Completion)} hands each waiting completion to a callback. Every operation carries a
 * {@code long} of the caller's, its user data, back in its completion; the result is what the
 * system call would have returned, or minus its {@code errno}.
 *
 * <p>Buffers are native addresses. The kernel reads or fills them after the call that prepared the
 * operation has returned, so a buffer must stay valid, and unused by anything else, until the
 * operation's completion has been handed over. A multishot receive takes its buffers from an
 * {@link BufferRing} instead, one per completion, until the caller gives each back.
 *
 * <p>Completions are not lost: the ring needs the kernel's {@code IORING_FEAT_NODROP} (Linux 5.5 and
 * later), under which completions that find the completion queue full wait in the kernel, and
 * {@link #complete} brings them in. {@link #submit} returns 0 without submitting while the kernel
 * holds too many of them; reap, then submit again.
 *
 * <p>Modes: those of {@code IoUring.Setup}; with {@code DEFER_TASKRUN}, {@link #submit} and {@link #complete}
 * enter the kernel to run the deferred completion work; with {@code TASKRUN_FLAG}, {@link #complete}
 * does when the kernel flags it.
 *
 * <p>Thread safety: one thread at a time prepares, submits and reaps; with {@code SINGLE_ISSUER} always
 * the one that opened the ring (the kernel refuses any other with {@code EEXIST}). No method
 * allocates on the Java heap per operation. After {@link #close()}, every method that touches the
 * queues or the descriptor throws {@link IllegalStateException}.
 */
public final class Ring implements AutoCloseable {
    /** Receives one completion. */
    @FunctionalInterface
    public interface Completion {
        /**
         * One operation completed.
         *
         * @param userData the operation's user data
         * @param result the system call's result, or minus its {@code errno}
         * @param flags the completion's flags ({@code IORING_CQE_F_*})
         */
        void complete(long userData, int result, int flags);
    }

    /** In a completion's flags: the operation used a provided buffer, whose id is {@code flags >>> CQE_BUFFER_SHIFT}. */
    public static final int CQE_F_BUFFER = 1;
    /** In a completion's flags: the submission goes on and more completions will come from it. */
    public static final int CQE_F_MORE = 1 << 1;
    /** Shift of a provided buffer's id in a completion's flags. */
    public static final int CQE_BUFFER_SHIFT = 16;
    /**
     * In a completion's flags: this is a zero-copy send's notification, the kernel's word that it no
     * longer uses the send's buffer (see {@link #sendZeroCopy}).
     */
    public static final int CQE_F_NOTIF = 1 << 3;
    /**
     * In a zero-copy send's notification's result, where the send asked for a report: the kernel
     * copied the bytes (all or some) after all, as it does for a peer on this machine.
     */
    public static final int NOTIF_USAGE_ZC_COPIED = 1 << 31;

    // Opcodes (IORING_OP_*), by which IoUring.Op names them.
    public static final int OP_NOP = 0;
    public static final int OP_POLL_ADD = 6;
    public static final int OP_ACCEPT = 13;
    public static final int OP_ASYNC_CANCEL = 14;
    public static final int OP_CONNECT = 16;
    public static final int OP_READ = 22;
    public static final int OP_WRITE = 23;
    public static final int OP_SEND = 26;
    public static final int OP_RECV = 27;
    public static final int OP_PROVIDE_BUFFERS = 31;
    public static final int OP_SEND_ZC = 47;

    // Setup flags (IORING_SETUP_*): those IoUring.Setup names, then those the options imply.
    public static final int SETUP_SQPOLL = 1 << 1;
    public static final int SETUP_SUBMIT_ALL = 1 << 7;
    public static final int SETUP_COOP_TASKRUN = 1 << 8;
    public static final int SETUP_TASKRUN_FLAG = 1 << 9;
    public static final int SETUP_SINGLE_ISSUER = 1 << 12;
    public static final int SETUP_DEFER_TASKRUN = 1 << 13;
    static final int SETUP_SQ_AFF = 1 << 2;
    static final int SETUP_CQSIZE = 1 << 3;
    static final int FEAT_SINGLE_MMAP = 1;
    /** The kernel keeps completions the queue has no room for: every ring here needs it. */
    public static final int FEAT_NODROP = 1 << 1;
    static final int ENTER_GETEVENTS = 1;
    static final int ENTER_SQ_WAKEUP = 1 << 1;
    static final int SQE_BUFFER_SELECT = 1 << 5;
    static final int RECV_MULTISHOT = 1 << 1;
    static final int POLL_ADD_MULTI = 1;
    static final int ENTER_EXT_ARG = 1 << 3;
    static final int SEND_ZC_REPORT_USAGE = 1 << 3;
    /** {@code struct io_uring_getevents_arg}: sigmask, sigmask_sz, min_wait_usec, ts; then the timespec. */
    static final int GETEVENTS_ARG_SIZE = 24;
    static final int SQ_NEED_WAKEUP = 1;
    static final int SQ_CQ_OVERFLOW = 1 << 1;
    static final int SQ_TASKRUN = 1 << 2;
    static final long OFF_SQ_RING = 0L;
    static final long OFF_CQ_RING = 0x8000000L;
    static final long OFF_SQES = 0x10000000L;

    /** {@code struct io_uring_params}: 120 bytes. */
    public static final int PARAMS_SIZE = 120;
    static final int SQE_SIZE = 64;
    static final int CQE_SIZE = 16;


    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();

    /** From the flags the ring was set up with (not the caller's options, which may change later). */
    private final boolean sqPoll;
    private final boolean deferTaskRun;
    private final int fd;
    private final int flags;
    private final int features;
    private final int sqEntries;
    private final int cqEntries;
    private final MemorySegment sqRing;
    private final MemorySegment cqRing;
    private final MemorySegment sqes;
    private final long sqHead;
    private final long sqTail;
    private final int sqMask;
    private final long sqFlags;
    private final long cqHead;
    private final long cqTail;
    private final int cqMask;
    private final long cqOverflow;
    private final long cqes;
    private final MemorySegment capture = LibC.captureSegment(Arena.ofAuto());
    /** For a bounded wait: {@code io_uring_getevents_arg}, then the {@code __kernel_timespec} it points to. */
    private final MemorySegment waitArg = Arena.ofAuto().allocate(GETEVENTS_ARG_SIZE + 16, 8);
    /** The next submission entry to fill; entries {@code [kernel's head, tail)} are prepared and not yet consumed. */
    private int tail;
    private boolean closed;

    private Ring(int fd, MemorySegment params) throws NativeIoException {
        this.fd = fd;
        this.flags = params.get(ValueLayout.JAVA_INT, 8);
        this.sqPoll = (flags & SETUP_SQPOLL) != 0;
        this.deferTaskRun = (flags & SETUP_DEFER_TASKRUN) != 0;
        this.features = params.get(ValueLayout.JAVA_INT, 20);
        this.sqEntries = params.get(ValueLayout.JAVA_INT, 0);
        this.cqEntries = params.get(ValueLayout.JAVA_INT, 4);
        int sqArray = params.get(ValueLayout.JAVA_INT, 64);
        int cqesOffset = params.get(ValueLayout.JAVA_INT, 100);
        long sqSize = sqArray + (long) sqEntries * Integer.BYTES;
        long cqSize = cqesOffset + (long) cqEntries * CQE_SIZE;
        MemorySegment sq = null;
        MemorySegment cq = null;
        MemorySegment entries = null;
        try {
            if ((features & FEAT_SINGLE_MMAP) != 0) {
                sq = mmapShared(fd, Math.max(sqSize, cqSize), OFF_SQ_RING, "io_uring rings");
                cq = sq;
            } else {
                sq = mmapShared(fd, sqSize, OFF_SQ_RING, "io_uring submission ring");
                cq = mmapShared(fd, cqSize, OFF_CQ_RING, "io_uring completion ring");
            }
            entries = mmapShared(fd, (long) sqEntries * SQE_SIZE, OFF_SQES, "io_uring submission entries");
        } catch (NativeIoException e) {
            unmapAll(sq, cq, entries);
            throw e;
        }
        this.sqRing = sq;
        this.cqRing = cq;
        this.sqes = entries;
        this.sqHead = params.get(ValueLayout.JAVA_INT, 40);
        this.sqTail = params.get(ValueLayout.JAVA_INT, 44);
        this.sqMask = sq.get(ValueLayout.JAVA_INT, params.get(ValueLayout.JAVA_INT, 48));
        this.sqFlags = params.get(ValueLayout.JAVA_INT, 56);
        this.cqHead = params.get(ValueLayout.JAVA_INT, 80);
        this.cqTail = params.get(ValueLayout.JAVA_INT, 84);
        this.cqMask = cq.get(ValueLayout.JAVA_INT, params.get(ValueLayout.JAVA_INT, 88));
        this.cqOverflow = params.get(ValueLayout.JAVA_INT, 96);
        this.cqes = cqesOffset;
        // Submission entry i always sits in ring slot i: the indirection array is filled once.
        for (int i = 0; i < sqEntries; i++) {
            sq.set(ValueLayout.JAVA_INT, sqArray + (long) i * Integer.BYTES, i);
        }
        this.tail = (int) INT.getAcquire(sq, sqTail);
    }

    /**
     * What a ring is opened with: its queue sizes and {@code io_uring_params.flags}.
     *
     * @param entries the submission queue's entries
     * @param cqEntries the completion queue's, or 0 for the kernel's choice
     * @param flags the setup flags, {@code CQSIZE} and {@code SQ_AFF} among them where they apply
     * @param sqThreadCpu the {@code SQPOLL} thread's CPU, or -1
     * @param sqThreadIdleMillis how long the {@code SQPOLL} thread polls before it sleeps
     * @param description the options in words, for errors
     */
    public record Params(int entries, int cqEntries, int flags, int sqThreadCpu, int sqThreadIdleMillis,
            String description) {
        /**
         * {@return the parameters of a ring with these sizes and setup flags}, adding the flags they imply
         *
         * @param entries the submission queue's entries
         * @param cqEntries the completion queue's, or 0 for the kernel's choice
         * @param setup the {@code SETUP_*} bits asked for
         * @param sqThreadCpu the {@code SQPOLL} thread's CPU, or -1
         * @param sqThreadIdleMillis how long the {@code SQPOLL} thread polls before it sleeps
         * @param description the options in words, for errors
         */
        public static Params of(int entries, int cqEntries, int setup, int sqThreadCpu, int sqThreadIdleMillis,
                String description) {
            int flags = setup;
            if (cqEntries > 0) {
                flags |= SETUP_CQSIZE;
            }
            if ((setup & SETUP_SQPOLL) != 0 && sqThreadCpu >= 0) {
                flags |= SETUP_SQ_AFF;
            }
            return new Params(entries, cqEntries, flags, sqThreadCpu, sqThreadIdleMillis, description);
        }
    }

    /**
     * Opens a ring; the caller has checked that the machine has io_uring ({@code IoUringSupport}).
     *
     * @param options its sizes and flags
     * @return the ring
     * @throws UnsupportedOperationException off Linux, or where the kernel lacks {@code IORING_FEAT_NODROP}
     * @throws NativeIoException if the kernel refuses these options ({@code EINVAL} for a flag it does
     *     not know or a combination it does not accept), naming them
     */
    public static Ring open(Params options) throws NativeIoException {
        LibC.checkSupported();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment params = arena.allocate(PARAMS_SIZE, 8);
            int flags = options.flags();
            params.set(ValueLayout.JAVA_INT, 4, options.cqEntries());
            params.set(ValueLayout.JAVA_INT, 8, flags);
            params.set(ValueLayout.JAVA_INT, 12, Math.max(options.sqThreadCpu(), 0));
            params.set(ValueLayout.JAVA_INT, 16, options.sqThreadIdleMillis());
            MemorySegment capture = LibC.captureSegment(arena);
            int fd = (int) Syscalls.call(capture, SyscallNumbers.IO_URING_SETUP, options.entries(), params.address(), 0, 0, 0, 0);
            if (fd < 0) {
                throw new NativeIoException("io_uring_setup", -fd, options.description() + " flags=0x"
                        + Integer.toHexString(flags));
            }
            int features = params.get(ValueLayout.JAVA_INT, 20);
            if ((features & FEAT_NODROP) == 0) {
                Sys.closeQuietly(fd);
                throw new UnsupportedOperationException("io_uring without IORING_FEAT_NODROP (Linux 5.5): completions"
                        + " could be dropped; features=0x" + Integer.toHexString(features));
            }
            try {
                return new Ring(fd, params);
            } catch (NativeIoException | RuntimeException e) {
                Sys.closeQuietly(fd);
                throw e;
            }
        }
    }

    /**
     * {@return whether the kernel says this ring's submission polling thread has gone to sleep}
     * ({@code IORING_SQ_NEED_WAKEUP}): it takes no more submissions until a system call wakes it. False
     * for a ring without one.
     */
    boolean submissionThreadAsleep() {
        return sqPoll && ((int) INT.getVolatile(sqRing, sqFlags) & SQ_NEED_WAKEUP) != 0;
    }

    /** {@return the submission queue's entries, as the kernel sized it} */
    public int submissionEntries() {
        return sqEntries;
    }

    /** {@return the completion queue's entries, as the kernel sized it} */
    public int completionEntries() {
        return cqEntries;
    }

    /** {@return the kernel's {@code IORING_FEAT_*} bits for this ring} */
    public int features() {
        return features;
    }

    /** {@return the ring's descriptor} */
    public int fd() {
        checkOpen();
        return fd;
    }

    /** {@return whether a kernel thread ({@code SQPOLL}) takes this ring's submissions} */
    public boolean sqPolling() {
        return sqPoll;
    }

    /** {@return operations prepared and not yet taken by the kernel} */
    public int pending() {
        checkOpen();
        return tail - (int) INT.getAcquire(sqRing, sqHead);
    }

    /** {@return completions the kernel dropped for want of room (0 under {@code NODROP}, which every ring here has)} */
    public int droppedCompletions() {
        checkOpen();
        return (int) INT.getAcquire(cqRing, cqOverflow);
    }

    /**
     * Prepares an operation that does nothing.
     *
     * @param userData returned in its completion
     * @return false if the submission queue is full
     */
    public boolean nop(long userData) {
        return prepare(OP_NOP, -1, 0, 0, 0, 0, userData);
    }

    /**
     * Prepares a {@code read(2)} of up to {@code length} bytes into {@code address}.
     *
     * @param fd the descriptor
     * @param address where the bytes go
     * @param length the most to read
     * @param userData returned in its completion
     * @param offset the file offset, or -1 for the descriptor's position (pipes, sockets)
     * @return false if the submission queue is full
     */
    public boolean read(int fd, long address, int length, long offset, long userData) {
        return prepare(OP_READ, fd, offset, address, length, 0, userData);
    }

    /**
     * Prepares a {@code write(2)} of {@code length} bytes from {@code address}.
     *
     * @param fd the descriptor
     * @param address the bytes
     * @param length how many
     * @param userData returned in its completion
     * @param offset the file offset, or -1 for the descriptor's position (pipes, sockets)
     * @return false if the submission queue is full
     */
    public boolean write(int fd, long address, int length, long offset, long userData) {
        return prepare(OP_WRITE, fd, offset, address, length, 0, userData);
    }

    /**
     * Prepares a {@code recv(2)} of up to {@code length} bytes into {@code address}.
     *
     * @param fd the socket
     * @param address where the bytes go
     * @param length the most to receive
     * @param userData returned in its completion
     * @param flags {@code recv}'s flags ({@code MSG_*})
     * @return false if the submission queue is full
     */
    public boolean recv(int fd, long address, int length, int flags, long userData) {
        return prepare(OP_RECV, fd, 0, address, length, flags, userData);
    }

    /**
     * Prepares a {@code send(2)} of {@code length} bytes from {@code address}.
     *
     * @param fd the socket
     * @param address the bytes
     * @param length how many
     * @param userData returned in its completion
     * @param flags {@code send}'s flags ({@code MSG_*}; {@code MSG_NOSIGNAL} to get {@code -EPIPE} rather than a signal)
     * @return false if the submission queue is full
     */
    public boolean send(int fd, long address, int length, int flags, long userData) {
        return prepare(OP_SEND, fd, 0, address, length, flags, userData);
    }

    /**
     * Prepares a zero-copy {@code send(2)} of {@code length} bytes from {@code address}
     * ({@code IORING_OP_SEND_ZC}, Linux 6.0): the kernel sends from the caller's pages instead of
     * copying them into socket buffers, so the buffer stays the kernel's after the send completes.
     * Two completions come, both with {@code userData}: the send's, with the count sent (or minus an
     * {@code errno}) and {@link #CQE_F_MORE} set when a notification follows; then the notification,
     * flagged {@link #CQE_F_NOTIF}, once the kernel no longer reads the buffer. Only then may the buffer
     * be written again. With {@code reportUsage}, the notification's result has
     * {@link #NOTIF_USAGE_ZC_COPIED} set where the kernel copied the bytes after all (a peer on the same
     * machine, over loopback or a veth pair, always gets a copy). Sockets that cannot send without a copy
     * (Unix domain sockets, for one) fail the send with {@code -EOPNOTSUPP}.
     *
     * @param fd the socket (TCP or UDP)
     * @param address the bytes, left untouched until the notification
     * @param length how many
     * @param flags {@code send}'s flags ({@code MSG_*})
     * @param reportUsage whether the notification says if the bytes were copied
     * @param userData returned in both completions
     * @return false if the submission queue is full
     */
    public boolean sendZeroCopy(int fd, long address, int length, int flags, boolean reportUsage, long userData) {
        return prepare(OP_SEND_ZC, 0, reportUsage ? SEND_ZC_REPORT_USAGE : 0, fd, 0, address, length, flags,
                userData, 0);
    }

    /**
     * Prepares a {@code connect(2)} of the socket {@code fd} to the {@code struct sockaddr} at
     * {@code sockaddr}: it completes with 0 once connected, or minus the connect's {@code errno}
     * ({@code -ECONNREFUSED}, {@code -ETIMEDOUT}, ...); the kernel waits for a TCP handshake itself, and
     * a cancellation ends the wait with {@code -ECANCELED}.
     *
     * @param fd the socket
     * @param sockaddr the address, left untouched until the completion
     * @param length its bytes
     * @param userData returned in its completion
     * @return false if the submission queue is full
     */
    public boolean connect(int fd, long sockaddr, int length, long userData) {
        return prepare(OP_CONNECT, fd, length, sockaddr, 0, 0, userData); // the length in addr2, the offset's place
    }

    /**
     * Prepares the cancellation of the operation in flight with user data {@code target}: that operation
     * completes with {@code -ECANCELED} (if it had not completed), and this one with 0, or
     * {@code -ENOENT} where nothing in flight has that user data, or {@code -EALREADY} where it was too
     * late to stop.
     *
     * @param target the user data of the operation to cancel
     * @param userData returned in this operation's completion
     * @return false if the submission queue is full
     */
    public boolean cancel(long target, long userData) {
        return prepare(OP_ASYNC_CANCEL, -1, 0, target, 0, 0, userData);
    }

    /**
     * Prepares a multishot {@code recv(2)}: one submission that completes once for each arrival of
     * bytes, each into a buffer the kernel takes from {@code buffers} (its id in the completion's flags:
     * {@code flags >>> }{@value #CQE_BUFFER_SHIFT}, with {@link #CQE_F_BUFFER} set), for as long as the
     * completions carry {@link #CQE_F_MORE}. The last completion lacks it: 0 at end of stream, minus an
     * {@code errno} on failure, {@code -ENOBUFS} when every buffer was taken (give some back, then prepare
     * another). Needs Linux 6.0.
     *
     * @param fd the socket
     * @param buffers the buffers to receive into, registered with this ring
     * @param userData returned in each of its completions
     * @return false if the submission queue is full
     */
    public boolean recvMultishot(int fd, BufferRing buffers, long userData) {
        return prepare(OP_RECV, SQE_BUFFER_SELECT, RECV_MULTISHOT, fd, 0, 0, 0, 0, userData, buffers.group());
    }

    /**
     * Prepares a poll of {@code fd} for {@code events} ({@code POLLIN} is 1, {@code POLLOUT} 4): it
     * completes with the ready events when one of them is, at once if one is already. A multishot poll
     * completes again on each later wake-up of the descriptor, with {@link #CQE_F_MORE} set, until a
     * completion lacks it (the kernel ended it, or it was cancelled). Multishot needs Linux 5.13.
     *
     * @param fd the descriptor
     * @param events the {@code poll(2)} events to wait for
     * @param multishot true to go on after the first completion
     * @param userData returned in each of its completions
     * @return false if the submission queue is full
     */
    public boolean poll(int fd, int events, boolean multishot, long userData) {
        return prepare(OP_POLL_ADD, fd, 0, 0, multishot ? POLL_ADD_MULTI : 0, events, userData);
    }

    private boolean prepare(int opcode, int fd, long offset, long address, int length, int opFlags, long userData) {
        return prepare(opcode, 0, 0, fd, offset, address, length, opFlags, userData, 0);
    }

    private boolean prepare(int opcode, int sqeFlags, int ioprio, int fd, long offset, long address, int length,
            int opFlags, long userData, int bufferIndexOrGroup) {
        checkOpen();
        int head = (int) INT.getAcquire(sqRing, sqHead);
        if (tail - head >= sqEntries) {
            return false;
        }
        long at = (long) (tail & sqMask) * SQE_SIZE;
        MemorySegment s = sqes;
        s.set(ValueLayout.JAVA_LONG, at, (opcode & 0xFFL) | (sqeFlags & 0xFFL) << 8 | (ioprio & 0xFFFFL) << 16
                | (long) fd << 32);
        s.set(ValueLayout.JAVA_LONG, at + 8, offset);
        s.set(ValueLayout.JAVA_LONG, at + 16, address);
        s.set(ValueLayout.JAVA_INT, at + 24, length);
        s.set(ValueLayout.JAVA_INT, at + 28, opFlags);
        s.set(ValueLayout.JAVA_LONG, at + 32, userData);
        s.set(ValueLayout.JAVA_LONG, at + 40, bufferIndexOrGroup & 0xFFFFL); // then personality 0, splice fd 0
        s.set(ValueLayout.JAVA_LONG, at + 48, 0L);
        s.set(ValueLayout.JAVA_LONG, at + 56, 0L);
        tail++;
        return true;
    }

    /**
     * Takes back the prepared operations the kernel has not consumed, as if they had never been
     * prepared: for a caller whose {@link #submit} failed, so that a later submission does not hand the
     * kernel an operation on a buffer its owner has given up. Without {@code SQPOLL} the kernel consumes
     * entries only inside {@code io_uring_enter}, so those still unconsumed are the caller's to take back;
     * with {@code SQPOLL} its thread may consume them at any moment, and none are taken back.
     *
     * @return how many were taken back; 0 with {@code SQPOLL}
     */
    public int withdraw() {
        checkOpen();
        if (sqPoll) {
            return 0;
        }
        int unconsumed = tail - (int) INT.getAcquire(sqRing, sqHead);
        if (unconsumed > 0) {
            tail -= unconsumed;
            INT.setRelease(sqRing, sqTail, tail);
        }
        return unconsumed;
    }

    /**
     * Hands the prepared operations to the kernel.
     *
     * @return how many the kernel took in this call (with {@code SQPOLL}: how many were pending,
     *     which its thread takes); 0 when it holds too many completions the queue had no room for
     * @throws NativeIoException if {@code io_uring_enter} fails otherwise
     */
    public int submit() throws NativeIoException {
        return enter(0);
    }

    /**
     * Hands the prepared operations to the kernel and waits until at least {@code completions}
     * completions are waiting to be reaped.
     *
     * @param completions how many to wait for, at least 1
     * @return as {@link #submit()}
     * @throws NativeIoException if {@code io_uring_enter} fails
     */
    public int submitAndWait(int completions) throws NativeIoException {
        requireCompletions(completions);
        return enter(completions);
    }

    /**
     * As {@link #submitAndWait(int)}, waiting at most {@code timeoutNanos} ({@code IORING_ENTER_EXT_ARG},
     * Linux 5.11); the time passing is not an error.
     *
     * @param completions how many to wait for, at least 1
     * @param timeoutNanos the most to wait, at least 0
     * @return as {@link #submit()}
     * @throws NativeIoException if {@code io_uring_enter} fails
     */
    public int submitAndWait(int completions, long timeoutNanos) throws NativeIoException {
        requireCompletions(completions);
        if (timeoutNanos < 0) {
            throw new IllegalArgumentException("timeoutNanos=" + timeoutNanos + " must be at least 0");
        }
        checkOpen();
        MemorySegment arg = waitArg;
        arg.set(ValueLayout.JAVA_LONG, 0, 0L); // no signal mask
        arg.set(ValueLayout.JAVA_LONG, 8, 0L); // its size, and no minimum wait
        arg.set(ValueLayout.JAVA_LONG, 16, arg.address() + GETEVENTS_ARG_SIZE);
        arg.set(ValueLayout.JAVA_LONG, GETEVENTS_ARG_SIZE, timeoutNanos / 1_000_000_000L);
        arg.set(ValueLayout.JAVA_LONG, GETEVENTS_ARG_SIZE + 8, timeoutNanos % 1_000_000_000L);
        return enter(completions, ENTER_EXT_ARG, arg.address(), GETEVENTS_ARG_SIZE);
    }

    private static void requireCompletions(int completions) {
        if (completions < 1) {
            throw new IllegalArgumentException("completions=" + completions + " must be at least 1; use submit()");
        }
    }

    private int enter(int waitFor) throws NativeIoException {
        return enter(waitFor, 0, 0, 0);
    }

    private int enter(int waitFor, int extraFlags, long arg, long argSize) throws NativeIoException {
        checkOpen();
        int pending = tail - (int) INT.getAcquire(sqRing, sqHead);
        INT.setRelease(sqRing, sqTail, tail);
        int enterFlags = (waitFor > 0 || deferTaskRun ? ENTER_GETEVENTS : 0) | extraFlags;
        int toSubmit = pending;
        if (sqPoll) {
            VarHandle.fullFence(); // the tail store before the flags load, as the kernel thread orders them
            if (submissionThreadAsleep()) {
                enterFlags |= ENTER_SQ_WAKEUP;
            } else if (waitFor == 0 && (enterFlags & ENTER_GETEVENTS) == 0) {
                return pending; // the polling thread takes them without a system call
            }
            toSubmit = 0; // with SQPOLL, to_submit only counts what to wait for
        }
        // Nothing to issue and nothing to wait for (GETEVENTS with min_complete 0 only runs completion work,
        // SQ_WAKEUP only wakes the polling thread): the call returns at once, so it may be a critical one.
        // Operations handed over are issued inline, and a file's may wait for its disk: never critical.
        boolean noWait = toSubmit == 0 && waitFor == 0 && (extraFlags & ENTER_EXT_ARG) == 0;
        while (true) {
            long n = noWait ? Syscalls.callNow(capture, SyscallNumbers.IO_URING_ENTER, fd, 0, 0, enterFlags, 0, 0)
                    : Syscalls.call(capture, SyscallNumbers.IO_URING_ENTER, fd, toSubmit, waitFor, enterFlags, arg, argSize);
            if (n >= 0) {
                return sqPoll ? pending : (int) n;
            }
            int errno = (int) -n;
            boolean bounded = (extraFlags & ENTER_EXT_ARG) != 0;
            if (errno == Errno.EINTR && !bounded) {
                continue;
            }
            if (errno == Errno.ETIME || errno == Errno.EINTR) {
                return 0; // a bounded wait ended, with nothing submitted; its caller keeps the deadline
            }
            if (errno == Errno.EAGAIN || errno == Errno.EBUSY) {
                return 0; // completions are waiting in the kernel for room: reap, then submit again
            }
            throw new NativeIoException("io_uring_enter", errno, "fd=" + fd + " to_submit=" + toSubmit + " min_complete="
                    + waitFor + " flags=0x" + Integer.toHexString(enterFlags));
        }
    }

    /**
     * Hands every completion waiting in the completion queue to {@code handler}, in order, bringing in
     * those the kernel held for want of room. The handler may prepare and submit more, and may close
     * the ring, which ends the call.
     *
     * @param handler receives each completion
     * @return how many completions were handed over
     * @throws NativeIoException if entering the kernel to bring held completions in fails
     */
    public int complete(Completion handler) throws NativeIoException {
        checkOpen();
        int handed = 0;
        while (true) {
            MemorySegment cq = cqRing;
            int head = (int) INT.get(cq, cqHead);
            int available = (int) INT.getAcquire(cq, cqTail);
            while (head != available) {
                long at = cqes + (long) (head & cqMask) * CQE_SIZE;
                long userData = cq.get(ValueLayout.JAVA_LONG, at);
                int result = cq.get(ValueLayout.JAVA_INT, at + 8);
                int cqeFlags = cq.get(ValueLayout.JAVA_INT, at + 12);
                head++;
                INT.setRelease(cq, cqHead, head); // the entry is copied out: its slot is free before the handler runs
                handed++;
                handler.complete(userData, result, cqeFlags);
                if (closed) {
                    return handed; // the handler closed the ring
                }
            }
            int ringFlags = (int) INT.getVolatile(sqRing, sqFlags);
            boolean held = (ringFlags & SQ_CQ_OVERFLOW) != 0;
            boolean deferred = handed == 0 && (deferTaskRun || (ringFlags & SQ_TASKRUN) != 0);
            if (!held && !deferred) {
                return handed;
            }
            long n;
            do {
                n = Syscalls.callNow(capture, SyscallNumbers.IO_URING_ENTER, fd, 0, 0, ENTER_GETEVENTS, 0, 0); // waits for none
            } while (n == -Errno.EINTR);
            if (n < 0) {
                throw new NativeIoException("io_uring_enter", (int) -n, "fd=" + fd
                        + " flags=GETEVENTS, to bring in held completions");
            }
            if (!held && (int) INT.getAcquire(cq, cqTail) == (int) INT.get(cq, cqHead)) {
                return handed; // deferred work ran and produced nothing
            }
        }
    }

    /** {@return {@code io_uring_register}'s result, or minus its errno} */
    public long register(int opcode, long argument, int count) {
        checkOpen();
        return Syscalls.call(capture, SyscallNumbers.IO_URING_REGISTER, fd, opcode, argument, count, 0, 0);
    }

    /**
     * Unmaps the queues and closes the ring. Operations still in flight are cancelled by the kernel;
     * their buffers must stay valid until this returns. Idempotent.
     */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            unmapAll(sqRing, cqRing, sqes);
            Sys.closeQuietly(fd);
        }
    }

    @Override
    public String toString() {
        return "Ring[fd=" + fd + " sq=" + sqEntries + " cq=" + cqEntries + " flags=0x" + Integer.toHexString(flags)
                + (closed ? " closed" : "") + "]";
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("closed: " + this);
        }
    }

    private static void unmapAll(MemorySegment sq, MemorySegment cq, MemorySegment entries) {
        if (entries != null) {
            munmap(entries);
        }
        if (cq != null && cq != sq) {
            munmap(cq);
        }
        if (sq != null) {
            munmap(sq);
        }
    }

    private static final int PROT_READ = 0x1;
    private static final int PROT_WRITE = 0x2;
    private static final int MAP_SHARED = 0x01;
    private static final int MAP_POPULATE = 0x8000;

    /**
     * Maps {@code length} bytes of {@code fd} at {@code offset}, shared, for reading and writing.
     *
     * @return the mapping, {@code length} bytes long; unmap it with {@link #munmap}
     * @throws NativeIoException if {@code mmap} fails
     */
    @SuppressWarnings("restricted") // the kernel's mapping, exactly as long as asked
    private static MemorySegment mmapShared(int fd, long length, long offset, String what) throws NativeIoException {
        MemorySegment capture = LibC.captureSegment(Arena.ofAuto());
        long address;
        try {
            address = (long) LibC.MMAP.invokeExact(capture, 0L, length, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
                    fd, offset);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("mmap down-call failed", t);
        }
        if (address == -1L) {
            throw new NativeIoException("mmap", LibC.errno(capture), what + ": fd=" + fd + " length=" + length + " offset=0x"
                    + Long.toHexString(offset));
        }
        return MemorySegment.ofAddress(address).reinterpret(length);
    }

    /** Unmaps a mapping made by {@link #mmapShared}; a failure, which only a wrong address causes, is ignored. */
    private static void munmap(MemorySegment mapping) {
        try {
            int ignored = (int) LibC.MUNMAP.invokeExact(LibC.captureSegment(Arena.ofAuto()), mapping.address(),
                    mapping.byteSize());
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("munmap down-call failed", t);
        }
    }
}
