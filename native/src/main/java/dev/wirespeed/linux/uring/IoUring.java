package dev.wirespeed.linux.uring;

import dev.wirespeed.linux.internal.uring.Ring;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * The options an io_uring is opened with: for an {@link IoUringSocket}
 * ({@link IoUringSocket.Builder#ring}) and, through its setup flags, an {@link IoUringTransport}; and
 * the operations {@link IoUringSupport} reports. Rings are set up and driven by the library through the
 * Foreign Function and Memory API alone (no liburing, no JNI); their submission and completion queues
 * are not exposed.
 *
 * <p>Modes ({@link Options}): interrupt-driven by default; {@link Setup#SINGLE_ISSUER} and
 * {@link Setup#DEFER_TASKRUN}, where completion work runs only when the ring's thread enters the
 * kernel for completions; {@link Setup#SQPOLL}, where a kernel thread, pinned where
 * {@link Options#sqPoll} says, takes submissions from the queue without a system call while it is
 * awake; {@link Setup#COOP_TASKRUN} with {@link Setup#TASKRUN_FLAG}, for a thread that polls the
 * completion queue, which then runs the kernel's completion work when the kernel flags it, instead of
 * being interrupted for it.
 *
 * <p>Thread safety: stateless; {@link Options} is a builder for one thread.
 */
public final class IoUring {
    /**
     * Operations by kernel opcode: those the library submits ({@code NOP}, {@code POLL_ADD},
     * {@code ASYNC_CANCEL}, {@code CONNECT}, {@code READ}, {@code WRITE}, {@code SEND}, {@code RECV},
     * {@code SEND_ZC}) and others a caller may need the kernel to have, as {@link IoUringSupport} reports
     * them.
     */
    public enum Op {
        /** Does nothing; completes with 0. */
        NOP(Ring.OP_NOP),
        /** Polls a descriptor for readiness. */
        POLL_ADD(Ring.OP_POLL_ADD),
        /** Accepts a connection. */
        ACCEPT(Ring.OP_ACCEPT),
        /** Cancels an operation in flight. */
        ASYNC_CANCEL(Ring.OP_ASYNC_CANCEL),
        /** {@code connect(2)}, the kernel waiting for the handshake. */
        CONNECT(Ring.OP_CONNECT),
        /** {@code read(2)}. */
        READ(Ring.OP_READ),
        /** {@code write(2)}. */
        WRITE(Ring.OP_WRITE),
        /** {@code send(2)}. */
        SEND(Ring.OP_SEND),
        /** {@code recv(2)}, single or multishot. */
        RECV(Ring.OP_RECV),
        /** Hands buffers to a buffer group (the older way; buffer rings replace it). */
        PROVIDE_BUFFERS(Ring.OP_PROVIDE_BUFFERS),
        /** {@code send(2)} without a copy of the buffer, with a notification when the kernel lets go of it. */
        SEND_ZC(Ring.OP_SEND_ZC);

        private final int code;

        Op(int code) {
            this.code = code;
        }

        /** {@return the kernel's opcode} */
        public int code() {
            return code;
        }
    }

    /** Setup flags a ring may be opened with. */
    public enum Setup {
        /** A kernel thread polls the submission queue (root, or {@code CAP_SYS_NICE}, before Linux 5.11). */
        SQPOLL(Ring.SETUP_SQPOLL),
        /** Submission goes on past a failed entry. */
        SUBMIT_ALL(Ring.SETUP_SUBMIT_ALL),
        /** Completion work runs when the ring's thread next enters the kernel, without an interrupt. */
        COOP_TASKRUN(Ring.SETUP_COOP_TASKRUN),
        /**
         * With {@link #COOP_TASKRUN}: the kernel raises a flag in the submission ring when completion work
         * waits, and the thread that polls the completion queue enters the kernel to run it, so a thread polling the
         * completion queue gets its completions without being interrupted.
         */
        TASKRUN_FLAG(Ring.SETUP_TASKRUN_FLAG),
        /** Only the thread that opened the ring submits to it. */
        SINGLE_ISSUER(Ring.SETUP_SINGLE_ISSUER),
        /** Completion work is deferred until the ring's thread asks for completions; needs {@link #SINGLE_ISSUER}. */
        DEFER_TASKRUN(Ring.SETUP_DEFER_TASKRUN);

        private final int bit;

        Setup(int bit) {
            this.bit = bit;
        }

        /** {@return the flag's bit in {@code io_uring_params.flags}} */
        public int bit() {
            return bit;
        }
    }

    /** The sizes and flags of a ring to open. */
    public static final class Options {
        private int entries = 256;
        private int cqEntries;
        private final EnumSet<Setup> setup = EnumSet.noneOf(Setup.class);
        private int sqThreadCpu = -1;
        private int sqThreadIdleMillis = 1000;

        Options() {
        }

        /**
         * Sets the submission queue's entries, rounded up by the kernel to a power of two.
         *
         * @param entries 1 to 32,768 (default 256)
         * @return this
         */
        public Options entries(int entries) {
            if (entries < 1 || entries > 32_768) {
                throw new IllegalArgumentException("entries=" + entries + " must be 1 to 32768");
            }
            this.entries = entries;
            return this;
        }

        /**
         * Sets the completion queue's entries ({@code IORING_SETUP_CQSIZE}), at least the submission
         * queue's; by default the kernel makes it twice those.
         *
         * @param cqEntries 1 to 65,536
         * @return this
         */
        public Options cqEntries(int cqEntries) {
            if (cqEntries < 1 || cqEntries > 65_536) {
                throw new IllegalArgumentException("cqEntries=" + cqEntries + " must be 1 to 65536");
            }
            this.cqEntries = cqEntries;
            return this;
        }

        /**
         * Adds setup flags.
         *
         * @param flags the flags
         * @return this
         */
        public Options with(Setup... flags) {
            setup.addAll(Set.of(flags));
            return this;
        }

        /**
         * Sets {@link Setup#SQPOLL}: a kernel thread takes submissions from the queue, sleeping after
         * {@code idleMillis} without any.
         *
         * @param cpu the CPU to pin the kernel thread to, or -1 to leave it to the scheduler
         * @param idleMillis how long the thread polls an empty queue before it sleeps
         * @return this
         */
        public Options sqPoll(int cpu, int idleMillis) {
            if (cpu < -1) {
                throw new IllegalArgumentException("cpu=" + cpu + " must be -1 (any) or a CPU number");
            }
            if (idleMillis < 0) {
                throw new IllegalArgumentException("idleMillis=" + idleMillis + " must be at least 0");
            }
            setup.add(Setup.SQPOLL);
            this.sqThreadCpu = cpu;
            this.sqThreadIdleMillis = idleMillis;
            return this;
        }

        /** {@return the submission queue's entries asked for} */
        public int entries() {
            return entries;
        }

        /** {@return the completion queue's entries asked for, or 0 for the kernel's choice} */
        public int cqEntries() {
            return cqEntries;
        }

        /** {@return the setup flags, a copy} */
        public Set<Setup> setup() {
            return Collections.unmodifiableSet(EnumSet.copyOf(setup));
        }

        /** {@return the CPU of the {@code SQPOLL} thread, or -1 for any} */
        public int sqThreadCpu() {
            return sqThreadCpu;
        }

        /** {@return how long the {@code SQPOLL} thread polls an empty queue before it sleeps} */
        public int sqThreadIdleMillis() {
            return sqThreadIdleMillis;
        }

        /** {@return the ring's parameters, for the library's rings} */
        Ring.Params params() {
            int bits = 0;
            for (Setup s : setup) {
                bits |= s.bit;
            }
            return Ring.Params.of(entries, cqEntries, bits, sqThreadCpu, sqThreadIdleMillis, toString());
        }

        @Override
        public String toString() {
            return "entries=" + entries + (cqEntries > 0 ? " cqEntries=" + cqEntries : "") + " setup=" + setup
                    + (setup.contains(Setup.SQPOLL) ? " sqThreadCpu=" + sqThreadCpu + " sqThreadIdle="
                            + sqThreadIdleMillis + "ms" : "");
        }
    }

    private IoUring() {
    }

    /** {@return options with the defaults: 256 entries, no setup flags} */
    public static Options options() {
        return new Options();
    }
}
