package dev.wirespeed.lab;

import dev.wirespeed.linux.Affinity;
import dev.wirespeed.linux.uring.IoUring;
import dev.wirespeed.linux.uring.IoUringTransport;
import dev.wirespeed.linux.NativeIoException;
import java.util.BitSet;

/**
 * How an io_uring ring is set up, by {@code --ring} name: an {@code IoUringSocket}'s for {@code ping}, the
 * event loops' ({@code IoUringTransport}) for {@code echo --loop --impl uring}, through {@link LoopImpl#URING}.
 */
public enum Ring implements CliName {
    /** The library's choice: interrupt-driven when waiting in the kernel, {@link #COOP} when polling. */
    DEFAULT,
    /** No setup flags: the kernel interrupts the thread to run a completion's work. */
    INTERRUPT,
    /** {@code COOP_TASKRUN} with {@code TASKRUN_FLAG}: the thread runs the completion's work when the kernel flags it. */
    COOP,
    /** {@code SINGLE_ISSUER} with {@code DEFER_TASKRUN}: the completion's work waits until the thread asks for completions. */
    DEFER,
    /**
     * {@code SQPOLL}: a kernel thread takes submissions from the queue without a system call, pinned to the
     * first CPU this process may run on (the lab pins each process to one), polling for a second before it
     * sleeps.
     */
    SQPOLL;

    /** How long the {@link #SQPOLL} thread polls an empty queue before it sleeps. */
    static final int SQPOLL_IDLE_MILLIS = 1_000;

    /**
     * {@return the ring's options, or null for {@link #DEFAULT}}
     *
     * @throws NativeIoException if this process's CPUs cannot be read (for {@link #SQPOLL})
     */
    public IoUring.Options options() throws NativeIoException {
        return switch (this) {
            case DEFAULT -> null;
            case INTERRUPT -> IoUring.options().entries(2);
            case COOP -> IoUring.options().entries(2).with(IoUring.Setup.COOP_TASKRUN, IoUring.Setup.TASKRUN_FLAG);
            case DEFER -> IoUring.options().entries(2).with(IoUring.Setup.SINGLE_ISSUER, IoUring.Setup.DEFER_TASKRUN);
            case SQPOLL -> {
                BitSet cpus = Affinity.allowedCpus();
                yield IoUring.options().entries(2).sqPoll(cpus.nextSetBit(0), SQPOLL_IDLE_MILLIS);
            }
        };
    }

    /**
     * {@return {@code transport} with its loops' rings set up this way} ({@link #DEFAULT}: the transport's
     * own choice, {@code SINGLE_ISSUER} with {@code DEFER_TASKRUN} where the kernel takes them)
     *
     * @param transport the loops' transport
     * @throws NativeIoException if this process's CPUs cannot be read (for {@link #SQPOLL})
     */
    public IoUringTransport apply(IoUringTransport transport) throws NativeIoException {
        return switch (this) {
            case DEFAULT -> transport;
            case INTERRUPT -> transport.setup();
            case COOP -> transport.setup(IoUring.Setup.COOP_TASKRUN, IoUring.Setup.TASKRUN_FLAG);
            case DEFER -> transport.setup(IoUring.Setup.SINGLE_ISSUER, IoUring.Setup.DEFER_TASKRUN);
            case SQPOLL -> transport.sqPoll(Affinity.allowedCpus().nextSetBit(0), SQPOLL_IDLE_MILLIS);
        };
    }

    @Override
    public String toString() {
        return cliName();
    }
}
