package dev.wirespeed.lab;

import dev.wirespeed.linux.epoll.EpollTransport;
import dev.wirespeed.linux.uring.IoUringTransport;
import dev.wirespeed.linux.NativeIoException;
import dev.wirespeed.loop.FrameServer;
import dev.wirespeed.loop.LoopGroup;

/**
 * The transports of the library's event loop, by the {@code --impl} name of {@code server --loop},
 * {@code echo --loop} and {@code load}.
 */
public enum LoopImpl implements CliName {
    /** The core's own: the JDK's {@code Selector}. */
    JDK,
    /** {@code epoll} through FFM: {@code EpollTransport}. */
    NATIVE,
    /** io_uring through FFM: {@code IoUringTransport}. */
    URING;

    /**
     * {@return {@code builder}, its loops on this transport}
     *
     * @param builder the server's builder
     * @throws UnsupportedOperationException where this machine lacks the transport, saying why
     */
    public FrameServer.Builder apply(FrameServer.Builder builder) {
        return switch (this) {
            case JDK -> builder;
            case NATIVE -> builder.transport(EpollTransport.create());
            case URING -> builder.transport(IoUringTransport.create());
        };
    }

    /**
     * As {@link #apply(FrameServer.Builder)}, an io_uring loop's ring set up as {@code ring} says.
     *
     * @param builder the server's builder
     * @param ring {@link Ring#DEFAULT} for any transport, another only for {@link #URING}
     * @return {@code builder}
     * @throws IllegalArgumentException for a ring setup with another transport than {@link #URING}
     * @throws UnsupportedOperationException where this machine lacks the transport, saying why
     * @throws NativeIoException if this process's CPUs cannot be read (for {@link Ring#SQPOLL})
     */
    public FrameServer.Builder apply(FrameServer.Builder builder, Ring ring) throws NativeIoException {
        if (ring == Ring.DEFAULT) {
            return apply(builder);
        }
        if (this != URING) {
            throw new IllegalArgumentException("--ring " + ring + " needs --impl " + URING + ", not " + this);
        }
        return builder.transport(ring.apply(IoUringTransport.create()));
    }

    /**
     * {@return {@code builder}, its loops on this transport}
     *
     * @param builder a loop group's builder
     * @throws UnsupportedOperationException where this machine lacks the transport, saying why
     */
    public LoopGroup.Builder apply(LoopGroup.Builder builder) {
        return switch (this) {
            case JDK -> builder;
            case NATIVE -> builder.transport(EpollTransport.create());
            case URING -> builder.transport(IoUringTransport.create());
        };
    }

    /** {@return null where this machine can run the loops, else why not} */
    public String unavailable() {
        try {
            switch (this) {
                case JDK -> {
                    // the JDK's Selector runs everywhere
                }
                case NATIVE -> EpollTransport.create();
                case URING -> IoUringTransport.create();
            }
            return null;
        } catch (UnsupportedOperationException e) {
            return e.getMessage();
        }
    }

    @Override
    public String toString() {
        return cliName();
    }
}
