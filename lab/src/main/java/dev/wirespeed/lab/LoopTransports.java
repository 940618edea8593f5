package dev.wirespeed.lab;

import dev.wirespeed.linux.EpollTransport;
import dev.wirespeed.lab.pingpong.Ring;
import dev.wirespeed.linux.IoUringTransport;
import dev.wirespeed.linux.NativeIoException;
import dev.wirespeed.loop.FrameServer;

/** The transports of the library's event loop that the commands name with {@code --impl}. */
public final class LoopTransports {
    private LoopTransports() {
    }

    /**
     * Puts {@code builder}'s loops on the transport {@code impl} names: {@code jdk} the core's
     * {@code Selector}, {@code native} {@code epoll}, {@code uring} io_uring.
     *
     * @param builder the server's builder
     * @param impl the {@code --impl} value
     * @return {@code builder}
     * @throws IllegalArgumentException for another {@code impl}
     * @throws UnsupportedOperationException where this machine lacks the transport, saying why
     */
    public static FrameServer.Builder apply(FrameServer.Builder builder, String impl) {
        return switch (impl) {
            case "jdk" -> builder;
            case "native" -> builder.transport(EpollTransport.create());
            case "uring" -> builder.transport(IoUringTransport.create());
            default -> throw new IllegalArgumentException("--impl " + impl + ": use jdk, native or uring");
        };
    }

    /**
     * As {@link #apply(FrameServer.Builder, String)}, the io_uring loops' rings set up as {@code ring} says.
     *
     * @param builder the server's builder
     * @param impl the {@code --impl} value
     * @param ring the {@code --ring} value: {@link Ring#DEFAULT} for any {@code impl}, another only with {@code uring}
     * @throws IllegalArgumentException for another {@code impl}, or a ring setup with one other than {@code uring}
     * @return {@code builder}
     * @throws UnsupportedOperationException where this machine lacks the transport, saying why
     * @throws NativeIoException if this process's CPUs cannot be read (for {@code --ring sqpoll})
     */
    public static FrameServer.Builder apply(FrameServer.Builder builder, String impl, Ring ring)
            throws NativeIoException {
        if (ring == Ring.DEFAULT) {
            return apply(builder, impl);
        }
        if (!impl.equals("uring")) {
            throw new IllegalArgumentException("--ring " + ring + " needs --impl uring, not " + impl);
        }
        return builder.transport(ring.apply(IoUringTransport.create()));
    }
}
